// The parts of the extension APIs that the chrome.debugger transport uses, typed here so that
// neither @types/chrome nor a global `chrome` is needed to compile it (the caller passes
// `chrome.debugger` and `chrome.tabs`), and how their errors read as DevTools Protocol errors.

/** Where a chrome.debugger command goes, or where an event came from. */
export interface DebuggerSource {
  tabId?: number;
  extensionId?: string;
  targetId?: string;
  /** A flattened child session (an out-of-process iframe) inside the tab. */
  sessionId?: string;
}

interface ChromeEvent<Listener> {
  addListener(listener: Listener): void;
  removeListener(listener: Listener): void;
}

export interface ChromeDebuggerApi {
  attach(target: DebuggerSource, requiredVersion: string): Promise<void>;
  detach(target: DebuggerSource): Promise<void>;
  sendCommand(target: DebuggerSource, method: string, commandParams?: object): Promise<unknown>;
  getTargets(): Promise<Array<{ id: string; tabId?: number; type: string; title: string; url: string; attached?: boolean }>>;
  onEvent: ChromeEvent<(source: DebuggerSource, method: string, params?: object) => void>;
  onDetach: ChromeEvent<(source: DebuggerSource, reason: string) => void>;
}

/** Only needed for Target.createTarget and Target.closeTarget on the root session. */
export interface ChromeTabsApi {
  create(properties: { url?: string; active?: boolean }): Promise<{ id?: number }>;
  remove(tabId: number): Promise<void>;
}

/** Chrome's own code for a command it will not run; a made-up one would mislead. */
const SERVER_ERROR = -32000;

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Chrome reports a refused command as an Error whose message is the protocol error as JSON text. */
export function protocolError(error: unknown): { code: number; message: string; data?: string } {
  const text = errorText(error);
  try {
    const parsed = JSON.parse(text) as { code?: unknown; message?: unknown; data?: unknown };
    if (parsed && typeof parsed.message === 'string') {
      const out: { code: number; message: string; data?: string } = {
        code: typeof parsed.code === 'number' ? parsed.code : SERVER_ERROR,
        message: parsed.message,
      };
      if (typeof parsed.data === 'string') out.data = parsed.data;
      return out;
    }
  } catch {
    // Not JSON: an extension API error in words ("Debugger is not attached to the tab ...").
  }
  return { code: SERVER_ERROR, message: text };
}

export function rootError(message: string): Error {
  return new Error(JSON.stringify({ code: SERVER_ERROR, message }));
}

export function detachReason(reason: string): string {
  if (reason === 'target_closed') return 'the tab was closed, or navigated to a page an extension may not debug';
  if (reason === 'canceled_by_user') return 'the user cancelled debugging from the browser infobar';
  return `chrome.debugger detached (${reason})`;
}
