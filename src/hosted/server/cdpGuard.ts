// The guard on a hosted session's connectUrl: every command a client sends is judged here before it
// reaches the session's browser. A hosted session must stay inside the public web, so a command goes
// through only when its domain acts inside the browser's own sandbox (pages, their scripts, network,
// storage); what reaches the server itself (its files, processes, hardware, ports, command line) is
// refused with a CDP error that says why and what to do instead. Allowing is the exception: a domain
// not listed here is refused, a domain new in a later Chrome included. docs/hosted.md lists the rules.

import type { BridgeGuard, GuardedCommand, Verdict } from '../../browser/cdpBridge.js';
import type { Connection } from '../../cdp/connection.js';
import { tapsOf } from '../../cdp/taps.js';
import { HOSTED_REFUSAL, ProtocolError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { BROWSER_UI, nonWebReason, targetUrlAllowed, urlRefusalMessage } from './webUrl.js';
import { sessionDownloads } from './workspace.js';

/** What the guard needs of a hosted session (sessions.ts's SessionRecord has it). */
export interface GuardedSession {
  id: string;
  downloadsDir?: string;
}

/** Deadline of the commands the guard sends itself (a history lookup, a context's downloads). */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Domains whose commands act only on the session's own pages, their scripts, network and storage.
 * Left out on purpose: SystemInfo (the server's hardware and process list), Tethering (opens ports
 * on the server), Extensions (loads extensions from the server's folders), PWA (installs and
 * launches apps on the server), Cast and DeviceAccess (devices around the server), Tracing (a trace
 * carries the browser's command line and the server's CPU, GPU and OS, and its system backend is
 * the host's tracing service), FileSystem, BluetoothEmulation, SmartCardEmulation and anything newer.
 * Browser has its own short list below.
 */
const SANDBOXED = new Set([
  'Accessibility',
  'Ads',
  'Animation',
  'Audits',
  'Autofill',
  'BackgroundService',
  'CacheStorage',
  'Console',
  'CrashReportContext',
  'CSS',
  'Debugger',
  'DeviceOrientation',
  'DigitalCredentials',
  'DOM',
  'DOMDebugger',
  'DOMSnapshot',
  'DOMStorage',
  'Emulation',
  'EventBreakpoints',
  'FedCm',
  'Fetch',
  'FindInPage',
  'HeadlessExperimental',
  'HeapProfiler',
  'IndexedDB',
  'Input',
  'Inspector',
  'IO',
  'LayerTree',
  'Log',
  'Media',
  'Memory',
  'Network',
  'Overlay',
  'Page',
  'Performance',
  'PerformanceTimeline',
  'Preload',
  'Profiler',
  'Runtime',
  'Schema',
  'Security',
  'ServiceWorker',
  'Storage',
  'Target',
  'WebAudio',
  'WebAuthn',
  'WebMCP',
]);

/** Why the domains known to reach the server are refused (others get a general reason). */
const DOMAIN_REASONS: Record<string, string> = {
  SystemInfo: "it describes the server's hardware and lists its processes",
  Tethering: 'it opens ports on the server',
  Extensions: "it loads extensions from the server's folders",
  PWA: 'it installs and launches apps on the server',
  Cast: "it reaches devices on the server's network",
  DeviceAccess: "it picks the server's Bluetooth and USB devices",
  Tracing:
    "a trace records the server: the browser's command line, its CPU, GPU and OS, and with the system backend the host's tracing service",
};

/** The Browser commands about the session's own windows, permissions and downloads. */
const BROWSER_ALLOWED = new Set([
  'getVersion',
  'getWindowForTarget',
  'getWindowBounds',
  'setWindowBounds',
  'setContentsSize',
  'grantPermissions',
  'resetPermissions',
  'setPermission',
  'cancelDownload',
  'setDownloadBehavior',
]);

const ALLOW: Verdict = {};

type Rule = (command: GuardedCommand, guard: HostedGuard) => Verdict | Promise<Verdict>;

const refuse = (method: string, why: string, instead: string): Verdict => ({
  refuse: `${HOSTED_REFUSAL} ${method} is not allowed on a hosted session: ${why}. ${instead}`,
});

const refuseAlways =
  (why: string, instead: string): Rule =>
  (command) =>
    refuse(command.method, why, instead);

/** A command that loads the URL in `field`. */
const loadsUrl =
  (field: string, emptyIs?: string): Rule =>
  (command) => {
    const given = command.params[field];
    if (typeof given !== 'string')
      return refuse(command.method, `it needs \`${field}\` as a string, and the server checks it`, 'Send the URL as a string.');
    const url = given === '' && emptyIs ? emptyIs : given;
    const reason = nonWebReason(url);
    return reason ? { refuse: `${HOSTED_REFUSAL} ${urlRefusalMessage(command.method, url, reason)}` } : ALLOW;
  };

/** A command that may replace a request's URL: checked only when it does. */
const mayRewriteUrl: Rule = (command, guard) => (command.params.url === undefined ? ALLOW : loadsUrl('url')(command, guard));

/** Chrome's filter when a command gives none: everything but the browser and tab targets. */
const DEFAULT_FILTER = [{ type: 'browser', exclude: true }, { type: 'tab', exclude: true }, {}];

/** Auto-attach as asked, except to Chrome's own UI, which the default filter would attach to. */
function withoutBrowserUi(command: GuardedCommand): Verdict {
  const filter = command.params.filter ?? DEFAULT_FILTER;
  if (!Array.isArray(filter))
    return refuse(command.method, '`filter` must be a list of target filters', 'Send a list, e.g. [{ "type": "page" }].');
  return { params: { ...command.params, filter: [{ type: BROWSER_UI, exclude: true }, ...filter] } };
}

const RULES: Record<string, Rule> = {
  'Page.navigate': loadsUrl('url'),
  // Chrome opens about:blank for an empty URL.
  'Target.createTarget': loadsUrl('url', 'about:blank'),
  'Network.loadNetworkResource': loadsUrl('url'),
  'Fetch.continueRequest': mayRewriteUrl,
  'Network.continueInterceptedRequest': mayRewriteUrl,
  'Page.navigateToHistoryEntry': (command, guard) => guard.checkHistoryEntry(command),
  'DOM.setFileInputFiles': refuseAlways(
    "its files are paths on the server's disk",
    'Give the input a file made in the page instead: a File put on input.files through a DataTransfer (Playwright: setInputFiles({ name, mimeType, buffer })).',
  ),
  'Input.dispatchDragEvent': (command) => {
    const files = (command.params.data as { files?: unknown } | undefined)?.files;
    if (!Array.isArray(files) || files.length === 0) return ALLOW;
    return refuse(
      command.method,
      "data.files are paths on the server's disk",
      'Drag text or items (data.items) instead, or build the files in the page.',
    );
  },
  'Target.exposeDevToolsProtocol': refuseAlways(
    "it gives the page's script a DevTools channel of its own, which nothing on the server would check",
    'Send the commands over connectUrl (Runtime.addBinding brings messages from the page).',
  ),
  'Target.sendMessageToTarget': refuseAlways(
    'a command wrapped in it would pass unchecked',
    'Attach with flatten: true and send commands with their sessionId, as Playwright and Puppeteer do.',
  ),
  'Target.setRemoteLocations': refuseAlways(
    'it makes the browser connect to hosts and ports from the server',
    "Attach to the session's own targets only.",
  ),
  'Target.openDevTools': refuseAlways('DevTools pages drive the browser itself', 'Drive the target over connectUrl instead.'),
  'ServiceWorker.inspectWorker': refuseAlways(
    'it opens DevTools, whose pages drive the browser itself',
    "Attach to the worker's target over connectUrl instead.",
  ),
  'Memory.getBrowserSamplingProfile': refuseAlways(
    "its modules are the server's libraries, with their paths and addresses",
    "Use HeapProfiler for the page's memory.",
  ),
  'Memory.getAllTimeSamplingProfile': refuseAlways(
    "its modules are the server's libraries, with their paths and addresses",
    "Use HeapProfiler for the page's memory.",
  ),
  'Memory.getSamplingProfile': refuseAlways(
    "its modules are the server's libraries, with their paths and addresses",
    "Use HeapProfiler for the page's memory.",
  ),
  // A client drives the session's pages, never Chrome's own UI (chrome: pages with privileged bindings).
  'Target.attachToTarget': (command, guard) => guard.checkTarget(command),
  'Target.activateTarget': (command, guard) => guard.checkTarget(command),
  'Target.closeTarget': (command, guard) => guard.checkTarget(command),
  'Target.autoAttachRelated': async (command, guard) => {
    const verdict = await guard.checkTarget(command);
    return verdict.refuse === undefined ? withoutBrowserUi(command) : verdict;
  },
  'Target.setAutoAttach': (command) => withoutBrowserUi(command),
  'Target.createBrowserContext': (command, guard) => guard.createContext(command),
  'Browser.setDownloadBehavior': (command, guard) => guard.downloads(command, ['deny', 'allow', 'allowAndName', 'default']),
  'Page.setDownloadBehavior': (command, guard) => guard.downloads(command, ['deny', 'allow', 'default']),
};

class HostedGuard implements BridgeGuard {
  constructor(
    private readonly record: GuardedSession,
    private readonly connection: Connection,
    private readonly logger: Logger,
  ) {}

  /**
   * Chrome puts a context's downloads back to its default (the browser's own folder) when the
   * client session that set them detaches; the session's folder is set again right behind it.
   */
  closed(): void {
    if (!this.record.downloadsDir) return;
    void this.connection.rootSession.sendQuiet('Browser.setDownloadBehavior', sessionDownloads(this.record.downloadsDir));
  }

  check(command: GuardedCommand): Verdict | Promise<Verdict> {
    const verdict = this.#judge(command);
    if (verdict instanceof Promise) return verdict.then((settled) => this.#logged(command, settled));
    return this.#logged(command, verdict);
  }

  #judge(command: GuardedCommand): Verdict | Promise<Verdict> {
    const { method } = command;
    if (!command.ownSession) {
      return {
        refuse:
          `${HOSTED_REFUSAL} ${method} was sent on a session this connection did not open. ` +
          'A client drives the targets it attached to itself (Target.attachToTarget or Target.setAutoAttach with flatten: true).',
      };
    }
    const dot = method.indexOf('.');
    const domain = dot > 0 ? method.slice(0, dot) : method;
    if (domain === 'Browser') {
      if (!BROWSER_ALLOWED.has(method.slice(dot + 1))) {
        const ends = ['close', 'crash', 'crashGpuProcess'].includes(method.slice(dot + 1));
        return refuse(
          method,
          "of the Browser domain only the commands about the session's own windows, permissions and downloads are allowed " +
            '(getVersion, getWindowForTarget, getWindowBounds, setWindowBounds, setContentsSize, grantPermissions, resetPermissions, ' +
            'setPermission, setDownloadBehavior, cancelDownload); the others act on the browser process on the server',
          ends
            ? 'To end the session, release it: POST /v1/sessions/<id> with {"status":"REQUEST_RELEASE"}.'
            : 'See docs/hosted.md for what connectUrl allows.',
        );
      }
    } else if (!SANDBOXED.has(domain)) {
      const why =
        DOMAIN_REASONS[domain] ?? "its domain is not on the hosted server's list of domains that act only inside the session's browser";
      return refuse(method, why, 'See docs/hosted.md for what connectUrl allows.');
    }
    const rule = Object.hasOwn(RULES, method) ? RULES[method] : undefined;
    return rule ? rule(command, this) : ALLOW;
  }

  #logged(command: GuardedCommand, verdict: Verdict): Verdict {
    if (verdict.refuse !== undefined)
      this.logger.info('hosted', 'Refused a command on connectUrl', { session: this.record.id, method: command.method });
    return verdict;
  }

  /** History navigation loads the entry's URL: it must be a web one like any other. */
  async checkHistoryEntry(command: GuardedCommand): Promise<Verdict> {
    const history = (await this.#ask(command.sessionId, 'Page.getNavigationHistory')) as { entries?: Array<{ id: number; url: string }> };
    const entry = history.entries?.find((each) => each.id === command.params.entryId);
    // Chrome answers an unknown entry with its own error.
    if (!entry) return ALLOW;
    const reason = nonWebReason(entry.url);
    return reason ? { refuse: `${HOSTED_REFUSAL} ${urlRefusalMessage(command.method, entry.url, reason)}` } : ALLOW;
  }

  /** A command naming a target: it must be one of the session's, not Chrome's own UI nor a non-web page. */
  async checkTarget(command: GuardedCommand): Promise<Verdict> {
    const targetId = command.params.targetId;
    // Chrome answers a missing or unknown id with its own error.
    if (typeof targetId !== 'string') return ALLOW;
    let info: { type: string; url: string };
    try {
      ({ targetInfo: info } = await this.connection.rootSession.send(
        'Target.getTargetInfo',
        { targetId },
        { timeoutMs: CHECK_TIMEOUT_MS },
      ));
    } catch (error) {
      if (error instanceof ProtocolError) return ALLOW;
      throw error;
    }
    if (info.type !== BROWSER_UI && targetUrlAllowed(info.url)) return ALLOW;
    return refuse(
      command.method,
      `the target is ${info.type === BROWSER_UI ? "part of the browser's own interface" : 'a page that is not of the web'}, not one of the session's pages`,
      'Use the targets of type page, iframe and worker that show web pages (Target.getTargets lists them).',
    );
  }

  /**
   * A context may not route around the server's network settings, and its downloads go to the
   * session's folder like the default context's (set before the client hears of the context).
   */
  createContext(command: GuardedCommand): Verdict {
    const given = (name: string) => {
      const value = command.params[name];
      return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '';
    };
    const routed = ['proxyServer', 'proxyBypassList', 'originsWithUniversalNetworkAccess'].filter(given);
    if (routed.length) {
      return refuse(
        command.method,
        `${routed.join(' and ')} would take the context's requests around the server's own network rules`,
        "Create the context without them; the session's network is the server's to set.",
      );
    }
    return {
      afterReply: async (result) => {
        const browserContextId = result.browserContextId;
        if (typeof browserContextId !== 'string') return undefined;
        const folder = this.record.downloadsDir;
        try {
          await this.connection.rootSession.send(
            'Browser.setDownloadBehavior',
            folder ? { behavior: 'allow', downloadPath: folder, browserContextId } : { behavior: 'deny', browserContextId },
            { timeoutMs: CHECK_TIMEOUT_MS },
          );
          return undefined;
        } catch (error) {
          // Left as it is, the context would download to the browser's default folder on the server.
          await this.connection.rootSession.sendQuiet('Target.disposeBrowserContext', { browserContextId });
          return `${HOSTED_REFUSAL} ${command.method} failed: the server could not set the new context's downloads (${(error as Error).message}), so it closed it. Try again.`;
        }
      },
    };
  }

  /**
   * Playwright and Puppeteer send a folder of the client's machine, which means nothing here; no
   * client may choose a folder of the server. Downloads go to the session's own folder, or are
   * denied when the session has none. `default` would be the browser's own folder on the server.
   */
  downloads(command: GuardedCommand, behaviors: string[]): Verdict {
    const behavior = command.params.behavior;
    if (typeof behavior !== 'string' || !behaviors.includes(behavior)) {
      return refuse(
        command.method,
        `behavior ${JSON.stringify(behavior)} is not one the server knows`,
        `Use one of ${behaviors.join(', ')}.`,
      );
    }
    if (behavior === 'deny') return ALLOW;
    const folder = this.record.downloadsDir;
    if (!folder) return { params: { ...command.params, behavior: 'deny', downloadPath: undefined } };
    return { params: { ...command.params, behavior: behavior === 'default' ? 'allow' : behavior, downloadPath: folder } };
  }

  /** Sends a command of the guard's own on a client's session, and resolves with its result. */
  #ask(sessionId: string, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      const sent = tapsOf(this.connection).sendRaw({ method, params, sessionId }, (reply) => {
        clearTimeout(timer);
        if (reply.error) reject(new Error(`${method} failed: ${reply.error.message}`));
        else resolve((reply.result ?? {}) as Record<string, unknown>);
      });
      if (!sent) {
        clearTimeout(timer);
        reject(new Error('the browser is gone'));
      }
    });
  }
}

/** The guard for one client of a session's connectUrl. */
export function hostedGuard(record: GuardedSession, connection: Connection, logger: Logger): BridgeGuard {
  return new HostedGuard(record, connection, logger);
}
