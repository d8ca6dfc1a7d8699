// Stagehand 3.7.3, installed into a scratch folder on demand (never a project dependency).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { perBuilder, type BenchSession, type DialogSeen, type LibraryAdapter, type SessionOptions, type ZodApi } from '../core/adapter.js';
import { clientOptions, SCRATCH_ROOT, type LaunchSpec } from '../core/config.js';
import { ensureScratch, esmEntry, installedVersion } from '../core/scratch.js';

export const STAGEHAND_VERSION = '3.7.3';
const PACKAGE = '@browserbasehq/stagehand';
/** The scratch install; the function measurement also bundles Stagehand from here. */
export const SCRATCH = path.join(SCRATCH_ROOT, `stagehand-${STAGEHAND_VERSION}`);

// The slice of Stagehand's API the bench uses (its own types live in the scratch folder).
interface CdpSessionLike {
  readonly id: string | null;
  on(event: string, handler: (params: unknown) => void): void;
}
interface StagehandPage {
  goto(url: string, options?: { waitUntil?: 'load' | 'domcontentloaded' | 'networkidle'; timeoutMs?: number }): Promise<unknown>;
  evaluate(expression: string): Promise<unknown>;
  mainFrameId(): string;
  getSessionForFrame(frameId: string): CdpSessionLike;
}
interface StagehandInstance {
  init(): Promise<void>;
  readonly context: {
    pages(): StagehandPage[];
    /** The CDP connection: events of the browser, and each target's session by id. */
    readonly conn: CdpSessionLike & { getSession(sessionId: string): CdpSessionLike | undefined };
  };
  /** Without arguments no model is involved: it resolves to the page's text outline. */
  extract(): Promise<{ pageText: string }>;
  /** v3's form: the schema is built with the zod installed next to Stagehand. */
  extract(instruction: string, schema: unknown): Promise<unknown>;
  /** v3's act(action: Action): an observe() result `{ selector, description, method?, arguments? }`. */
  act(action: { selector: string; description: string; method?: string; arguments?: string[] }): Promise<{ success: boolean }>;
  close(options?: { force?: boolean }): Promise<void>;
}
type StagehandConstructor = new (options: Record<string, unknown>) => StagehandInstance;

interface DialogOpening {
  readonly type?: string;
  readonly message?: string;
}

/**
 * Stagehand 3.7.3 never answers a JavaScript dialog, so one left open holds its page. Listening
 * to the dialog events of every CDP session it has (the page's, then each one it attaches, e.g.
 * an out-of-process iframe's) sends nothing to the browser and changes nothing it does.
 */
function watchDialogs(sh: StagehandInstance, page: StagehandPage): readonly DialogSeen[] {
  const seen: Array<DialogSeen & { open: boolean }> = [];
  const open = new Map<string, DialogSeen & { open: boolean }>(); // session id -> its open dialog
  const watch = (session: CdpSessionLike | undefined) => {
    const id = session?.id;
    if (!session || !id) return;
    session.on('Page.javascriptDialogOpening', (params) => {
      const { type, message } = params as DialogOpening;
      const dialog = { type: String(type), message: String(message ?? '').slice(0, 100), open: true };
      seen.push(dialog);
      open.set(id, dialog);
    });
    session.on('Page.javascriptDialogClosed', () => {
      const dialog = open.get(id);
      if (dialog) dialog.open = false;
      open.delete(id);
    });
  };
  const { conn } = sh.context;
  watch(page.getSessionForFrame(page.mainFrameId()));
  conn.on('Target.attachedToTarget', (params) => watch(conn.getSession((params as { sessionId: string }).sessionId)));
  return seen;
}

/** Installs Stagehand into .bench/stagehand-3.7.3/ unless that is already done. */
export function ensureStagehandInstalled(log: (line: string) => void): void {
  ensureScratch(
    {
      dir: SCRATCH,
      name: 'tendril-bench-stagehand',
      specs: [`${PACKAGE}@${STAGEHAND_VERSION}`, 'zod@3'],
      env: {
        ...process.env,
        // Stagehand 3 drives Chrome over CDP itself; nothing may fetch browser builds.
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
        PUPPETEER_SKIP_DOWNLOAD: '1',
        PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1',
      },
      problem: () =>
        installedVersion(PACKAGE, SCRATCH) === STAGEHAND_VERSION
          ? null
          : `npm install finished but ${PACKAGE}@${STAGEHAND_VERSION} is not resolvable from ${SCRATCH}`,
    },
    log,
  );
}

export async function loadStagehand(log: (line: string) => void): Promise<LibraryAdapter> {
  ensureStagehandInstalled(log);
  const mod = (await import(pathToFileURL(esmEntry(PACKAGE, SCRATCH)).href)) as { Stagehand?: StagehandConstructor };
  const Stagehand = mod.Stagehand;
  if (typeof Stagehand !== 'function') throw new Error(`${PACKAGE} does not export Stagehand`);
  // The same file Stagehand's own `import "zod"` resolves to: its schema handling expects its zod.
  const zod = (await import(pathToFileURL(esmEntry('zod', SCRATCH)).href)) as { z?: ZodApi };
  if (!zod.z) throw new Error(`zod in ${SCRATCH} does not export z`);
  const z = zod.z;
  const schemaFor = perBuilder((build) => build(z));

  return {
    id: 'stagehand',
    label: `Stagehand ${STAGEHAND_VERSION}`,
    newSession(launch: LaunchSpec, options: SessionOptions = {}): BenchSession {
      // With a model object Stagehand 3.7.3 calls createOpenAI({ apiKey, baseURL, fetch }) and uses
      // its default (Responses API) model, as Tendril does.
      const sh = new Stagehand(clientOptions(launch, options.model));
      const firstPage = () => {
        const page = sh.context.pages()[0];
        if (!page) throw new Error('Stagehand has no page after init()');
        return page;
      };
      let dialogs: readonly DialogSeen[] = [];
      return {
        async init() {
          await sh.init();
          if (options.watchDialogs) dialogs = watchDialogs(sh, firstPage());
        },
        async goto(url) {
          // Stagehand's default is domcontentloaded; ask for load, as the Tendril adapter does.
          await firstPage().goto(url, { waitUntil: 'load' });
        },
        async gotoDefault(url) {
          await firstPage().goto(url);
        },
        extractText: async () => (await sh.extract()).pageText,
        extractWithSchema: (instruction, build) => sh.extract(instruction, schemaFor(build)),
        act: (action) => sh.act({ ...action, arguments: [...action.arguments] }),
        evaluate: (expression) => firstPage().evaluate(expression),
        ...(options.watchDialogs ? { dialogs: () => dialogs } : {}),
        close: () => sh.close(),
      };
    },
  };
}
