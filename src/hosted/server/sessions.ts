// The server's sessions: each one is a Chromium of its own (the strongest isolation there is: no
// session can reach another's pages, cookies or storage), launched over a pipe and reachable only
// through its signed connectUrl. A session ends on release, at its deadline, or when its browser
// dies; ending always closes the browser.

import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { CreateSessionRequest, Session, SessionStatus } from '../../../protocol/index.js';
import { STATUS_OF } from '../../../protocol/index.js';
import { serveClient } from '../../browser/cdpBridge.js';
import type { BrowserHandle } from '../../browser/browser.js';
import { launchChrome } from '../../browser/launch.js';
import { HostedServiceError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { checkDomainPolicy, type CheckedPolicy } from '../../util/domainPolicy.js';
import type { AdBlocker } from './adblock.js';
import { Admission } from './admission.js';
import { hostedGuard } from './cdpGuard.js';
import type { HostedServerConfig } from './config.js';
import { EgressProxy } from './egress.js';
import { NetworkRules } from './networks.js';
import { IdleWatch } from './reaper.js';
import { confineDownloads, makeWorkspace, type Workspace } from './workspace.js';
import { watchSchemes } from './schemeWatch.js';
import { signToken } from './tokens.js';

export interface SessionRecord {
  id: string;
  projectId?: string;
  region: string;
  keepAlive: boolean;
  createdAt: number;
  expiresAt: number;
  status: SessionStatus;
  browser?: BrowserHandle;
  /** Every request of the session's browser goes through it. */
  egress?: EgressProxy;
  workspace?: Workspace;
  /** The folder the session's downloads go to (inside its own folder, removed when it ends). */
  downloadsDir?: string;
  /** The session's domainPolicy, checked. */
  domainPolicy?: CheckedPolicy;
  timer?: ReturnType<typeof setTimeout>;
  /** Ends the session once nobody uses it (reaper.ts); none for keepAlive sessions. */
  idle?: IdleWatch;
}

const ENDED_KEPT = 1000;

export function apiError(code: keyof typeof STATUS_OF, message: string, retryAfterSeconds?: number): HostedServiceError {
  return new HostedServiceError(message, STATUS_OF[code], code, retryAfterSeconds);
}

export class SessionManager {
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #rules: NetworkRules;
  /** At most config.maxStarting browsers start at once; the other requests wait their turn, or are told to come back. */
  readonly admission: Admission;
  #active = 0;

  constructor(
    private readonly config: HostedServerConfig,
    private readonly logger: Logger,
    /** Ad blocking, or why this server cannot block ads. */
    private readonly adBlocker: AdBlocker | Error,
  ) {
    this.#rules = new NetworkRules(config.allowNetworks);
    this.admission = new Admission(config);
  }

  get activeCount(): number {
    return this.#active;
  }

  /** `wait`: how long the client waits for the answer, and its going away (admission.ts). */
  async create(request: CreateSessionRequest, wait: { budgetMs?: number; signal?: AbortSignal } = {}): Promise<SessionRecord> {
    const blocks = request.browserSettings?.blockAds ? this.#blockList() : undefined;
    let domainPolicy: CheckedPolicy | undefined;
    try {
      domainPolicy = checkDomainPolicy(request.domainPolicy);
    } catch (error) {
      throw apiError('bad_request', (error as Error).message);
    }
    // Counted before the launch, so concurrent requests cannot all slip under the limit.
    if (this.#active >= this.config.maxSessions) {
      throw apiError('rate_limited', `All ${this.config.maxSessions} sessions are in use; release one or try again shortly.`, 5);
    }
    this.#active++;
    let slot;
    try {
      slot = await this.admission.enter(wait.budgetMs, wait.signal);
    } catch (error) {
      this.#active--;
      throw error;
    }
    const now = Date.now();
    const lifetime = Math.min(request.timeout ?? this.config.sessionTimeoutMs, this.config.sessionTimeoutMs);
    const record: SessionRecord = {
      id: randomUUID(),
      projectId: request.projectId,
      region: request.region ?? 'local',
      keepAlive: request.keepAlive ?? false,
      createdAt: now,
      expiresAt: now + lifetime,
      status: 'RUNNING',
      domainPolicy,
    };
    try {
      record.workspace = await makeWorkspace();
      record.downloadsDir = record.workspace.downloadsDir;
      record.egress = await EgressProxy.start(
        {
          rules: this.#rules,
          policy: domainPolicy,
          blocks,
          dnsServers: this.config.dnsServers,
          connectTimeoutMs: this.config.connectTimeoutMs,
          responseTimeoutMs: this.config.responseTimeoutMs,
          session: record.id,
        },
        this.logger,
      );
      record.browser = await launchChrome(
        {
          executablePath: this.config.chromePath,
          args: [...this.config.chromeArgs, ...record.egress.chromeArgs()],
          viewport: request.browserSettings?.viewport,
          userDataDir: record.workspace.profileDir,
        },
        this.logger,
        30_000,
        { env: record.workspace.env, removeOnExit: record.workspace.dir },
      );
      await confineDownloads(record.browser, record.downloadsDir, this.config.maxDownloadBytes, this.logger, record.id);
      await watchSchemes(record.browser, this.logger, record.id);
      slot.done(true);
    } catch (error) {
      slot.done(false);
      this.#active--;
      await this.#dispose(record);
      throw apiError('internal', `Could not start a browser for the session: ${(error as Error).message}`);
    }
    this.#sessions.set(record.id, record);
    record.browser.connection.on('disconnected', () => {
      if (record.status !== 'RUNNING') return;
      this.logger.error('hosted', 'A session browser exited; the session has ended', { session: record.id });
      void this.#end(record, 'ERROR');
    });
    record.timer = setTimeout(() => void this.#end(record, 'TIMED_OUT'), lifetime);
    if (!record.keepAlive && this.config.idleTimeoutMs > 0) {
      record.idle = new IdleWatch(this.config.idleTimeoutMs, () => {
        this.logger.info('hosted', `No client used the session for ${this.config.idleTimeoutMs} ms; ending it`, { session: record.id });
        void this.#end(record, 'TIMED_OUT');
      });
    }
    this.logger.info('hosted', 'Session started', { session: record.id, active: this.#active });
    return record;
  }

  #blockList(): (host: string) => boolean {
    if (this.adBlocker instanceof Error) throw apiError('bad_request', `This server cannot block ads: ${this.adBlocker.message}`);
    const blocker = this.adBlocker;
    return (host) => blocker.blocks(host);
  }

  /** Whether this instance holds (or held) the session. */
  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  runningIds(): string[] {
    return this.allRunning().map((record) => record.id);
  }

  allRunning(): SessionRecord[] {
    return [...this.#sessions.values()].filter((record) => record.status === 'RUNNING');
  }

  get(id: string): SessionRecord {
    const record = this.#sessions.get(id);
    if (!record) throw apiError('not_found', `There is no session ${JSON.stringify(id)}.`);
    return record;
  }

  /** A running session, or the error that says why it is not. */
  running(id: string): SessionRecord {
    const record = this.get(id);
    if (record.status !== 'RUNNING' || !record.browser) {
      throw apiError(record.status === 'ERROR' ? 'browser_gone' : 'conflict', `Session ${id} has ended (${record.status}).`);
    }
    return record;
  }

  release(id: string): Promise<SessionRecord> {
    return this.#end(this.get(id), 'COMPLETED');
  }

  /** Hands a WebSocket (already authorised for this session) a DevTools session on its browser. */
  serveCdp(id: string, socket: WebSocket): void {
    const record = this.running(id);
    const free = record.idle?.hold();
    if (free) socket.once('close', free);
    serveClient(record.browser!.connection, socket, this.logger, hostedGuard(record, record.browser!.connection, this.logger));
  }

  toWire(record: SessionRecord, baseUrl: string): Session {
    const token = signToken(this.config.signingSecret, record.id, record.expiresAt);
    const ws = baseUrl.replace(/^http/, 'ws');
    return {
      id: record.id,
      status: record.status,
      region: record.region,
      projectId: record.projectId,
      connectUrl: `${ws}/v1/sessions/${record.id}/cdp?token=${encodeURIComponent(token)}`,
      createdAt: new Date(record.createdAt).toISOString(),
      expiresAt: new Date(record.expiresAt).toISOString(),
      keepAlive: record.keepAlive,
    };
  }

  async closeAll(): Promise<void> {
    this.admission.closeAll();
    await Promise.all([...this.#sessions.values()].map((record) => this.#end(record, 'COMPLETED')));
  }

  async #end(record: SessionRecord, status: SessionStatus): Promise<SessionRecord> {
    if (record.status !== 'RUNNING') return record;
    record.status = status;
    clearTimeout(record.timer);
    record.idle?.stop();
    this.#active--;
    await this.#dispose(record);
    this.logger.info('hosted', 'Session ended', { session: record.id, status, active: this.#active });
    this.#forgetOldest();
    return record;
  }

  /** Closes the browser, then its proxy, then removes the session's folder: nothing of it stays. */
  async #dispose(record: SessionRecord): Promise<void> {
    const { browser, egress, workspace } = record;
    record.browser = record.egress = record.workspace = undefined;
    await browser?.close();
    await egress?.close();
    await workspace?.remove();
  }

  #forgetOldest(): void {
    if (this.#sessions.size <= this.config.maxSessions + ENDED_KEPT) return;
    for (const [id, record] of this.#sessions) {
      if (record.status === 'RUNNING') continue;
      this.#sessions.delete(id);
      if (this.#sessions.size <= this.config.maxSessions + ENDED_KEPT) break;
    }
  }
}
