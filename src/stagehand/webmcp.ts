// Stagehand 3's page.listWebMCPTools() and page.invokeWebMCPTool(): the tools a page registers with
// WebMCP (document.modelContext.registerTool), listed and called through the DevTools Protocol's
// WebMCP domain. Chrome gives pages document.modelContext only with the WebMCP feature on
// (`--enable-features=WebMCPTesting`, which a Stagehand's launch passes, as Stagehand's does).
// Methods of StagehandPage (page.ts).

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError, PageClosedError, ProtocolError, TargetClosedError, TimeoutError } from '../errors.js';
import type { Frame } from '../driver/frame.js';
import type { Page } from '../driver/page.js';
import { milliseconds } from '../util/checks.js';
import { StagehandUnsupportedBrowserFeatureError } from './errors.js';

export type WebMCPTool = {
  name: string;
  description?: string;
  inputSchema?: string | Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** The frame that registered it: invokeWebMCPTool's `frameId`. */
  frameId: string;
};
export type WebMCPToolInvocationStatus = 'Completed' | 'Canceled' | 'Error';
export type WebMCPToolResult = {
  invocationId: string;
  status: WebMCPToolInvocationStatus;
  output?: unknown;
  errorText?: string;
  exception?: unknown;
};
export type WebMCPToolInvocation = {
  invocationId: string;
  toolName: string;
  frameId: string;
  /** Resolves once the tool answered (or failed, or was cancelled); TimeoutError after `timeoutMs`, PageClosedError if the frame goes first. */
  result: Promise<WebMCPToolResult>;
  cancel: () => Promise<void>;
};
export type WebMCPListToolsOptions = { timeoutMs?: number };
export type WebMCPToolInvocationOptions = { frameId?: string; timeoutMs?: number };

const HOW_TO_ENABLE =
  "Chrome's WebMCP domain is missing: it needs Chrome or Chromium 149 or newer. Pages get document.modelContext only with --enable-features=WebMCPTesting, which a Stagehand's browser has (an Sdk's: pass it in localBrowserLaunchOptions.args); start a browser you attach to with it.";

interface Waiting {
  resolve(result: WebMCPToolResult): void;
  reject(error: Error): void;
}

/** Per page session: results not claimed yet (a fast tool can answer before invokeTool does), and who waits for which. */
interface SessionState {
  enabled: Promise<void> | undefined;
  waiting: Map<string, Waiting>;
  early: Map<string, WebMCPToolResult>;
  /** invokeTool commands awaiting their answer: only then is an unclaimed result kept. */
  invoking: number;
}
const states = new WeakMap<CdpSession, SessionState>();

function stateOf(session: CdpSession): SessionState {
  let state = states.get(session);
  if (state) return state;
  const created: SessionState = { enabled: undefined, waiting: new Map(), early: new Map(), invoking: 0 };
  states.set(session, (state = created));
  session.on('WebMCP.toolResponded', (event) => {
    const result = resultOf(event);
    const waiting = created.waiting.get(event.invocationId);
    if (waiting) waiting.resolve(result);
    else if (created.invoking) created.early.set(event.invocationId, result);
  });
  session.on('detached', () => {
    for (const [id, waiting] of created.waiting)
      waiting.reject(new PageClosedError(`The frame of WebMCP invocation ${id} went away before the tool answered.`));
    created.waiting.clear();
  });
  return state;
}

function resultOf(event: Protocol.WebMCP.ToolRespondedEvent): WebMCPToolResult {
  const result: WebMCPToolResult = { invocationId: event.invocationId, status: event.status ?? 'Error' };
  if (event.output !== undefined) result.output = event.output;
  if (event.errorText !== undefined) result.errorText = event.errorText;
  if (event.exception !== undefined) result.exception = event.exception;
  return result;
}

function unsupported(error: unknown, what: string): unknown {
  if (error instanceof ProtocolError && (error.code === -32601 || /wasn't found|method not found/i.test(error.message))) {
    return new StagehandUnsupportedBrowserFeatureError('WebMCP', `${what}. ${HOW_TO_ENABLE} (${error.message})`, error);
  }
  return error;
}

function toolOf(tool: Protocol.WebMCP.Tool): WebMCPTool {
  // Chrome's debugging fields (the registration's stack trace, a declarative tool's node) stay out, as in Stagehand.
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    ...(tool.inputSchema !== undefined && { inputSchema: tool.inputSchema as Record<string, unknown> }),
    ...(tool.annotations !== undefined && { annotations: { ...tool.annotations } }),
    frameId: tool.frameId,
  };
}

/** Every tool one session's frames registered: Chrome announces them all (toolsAdded) before it answers WebMCP.enable. */
async function toolsOf(session: CdpSession, timeoutMs: number): Promise<WebMCPTool[]> {
  const tools = new Map<string, WebMCPTool>();
  const offAdded = session.on('WebMCP.toolsAdded', ({ tools: added }) => {
    for (const tool of added) tools.set(`${tool.frameId}\n${tool.name}`, toolOf(tool));
  });
  const offRemoved = session.on('WebMCP.toolsRemoved', ({ tools: removed }) => {
    for (const tool of removed) tools.delete(`${tool.frameId}\n${tool.name}`);
  });
  try {
    const state = stateOf(session);
    const enabled = session.send('WebMCP.enable', undefined, { timeoutMs });
    state.enabled = enabled.then(() => undefined);
    state.enabled.catch(() => (state.enabled = undefined));
    await enabled;
  } finally {
    offAdded();
    offRemoved();
  }
  return [...tools.values()];
}

function sessionsOf(page: Page): CdpSession[] {
  return [...new Set(page.frames().map((frame) => frame.session))].filter((session) => !session.detached);
}

/** StagehandPage.listWebMCPTools() (page.ts). */
export async function listWebMCPTools(page: Page, options: WebMCPListToolsOptions = {}): Promise<WebMCPTool[]> {
  const timeoutMs = milliseconds(options?.timeoutMs ?? 1_000, 'listWebMCPTools: timeoutMs', 1);
  page.assertOpen('listWebMCPTools()');
  try {
    // An out-of-process frame that goes meanwhile has no tools to list; the page's own session going is the page closing.
    const lists = await Promise.all(
      sessionsOf(page).map((session) =>
        toolsOf(session, timeoutMs).catch((error: unknown) => {
          if (error instanceof TargetClosedError && session !== page.session) return [];
          throw error;
        }),
      ),
    );
    // Tree order: the main frame's tools first.
    const order = new Map(page.frames().map((frame, i) => [frame.id, i]));
    return lists.flat().sort((a, b) => (order.get(a.frameId) ?? Infinity) - (order.get(b.frameId) ?? Infinity));
  } catch (error) {
    if (error instanceof TimeoutError)
      throw new TimeoutError(`listWebMCPTools: Chrome did not list the page's WebMCP tools within ${timeoutMs} ms.`, timeoutMs);
    throw unsupported(error, 'Cannot list WebMCP tools');
  }
}

/** StagehandPage.invokeWebMCPTool() (page.ts). */
export async function invokeWebMCPTool(
  page: Page,
  toolName: string,
  input: Record<string, unknown>,
  options: WebMCPToolInvocationOptions = {},
): Promise<WebMCPToolInvocation> {
  if (typeof toolName !== 'string' || !toolName)
    throw new InvalidOptionError(
      `invokeWebMCPTool takes a tool's name first (page.listWebMCPTools() lists them), not ${JSON.stringify(toolName) ?? String(toolName)}.`,
    );
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidOptionError(
      `invokeWebMCPTool("${toolName}", input): the input is an object of the tool's parameters, not ${JSON.stringify(input) ?? String(input)}.`,
    );
  }
  const timeoutMs = milliseconds(options?.timeoutMs ?? 30_000, 'invokeWebMCPTool: timeoutMs', 1);
  page.assertOpen('invokeWebMCPTool()');
  let frame: Frame | undefined;
  if (options?.frameId !== undefined) {
    frame = typeof options.frameId === 'string' ? page.frameById(options.frameId) : undefined;
    if (!frame || frame.isDetached())
      throw new InvalidOptionError(
        `invokeWebMCPTool: this page has no frame with id ${JSON.stringify(options.frameId)}; a tool's frameId (listWebMCPTools()) names one.`,
      );
  } else {
    const matching = (await listWebMCPTools(page)).filter((tool) => tool.name === toolName);
    if (!matching.length)
      throw new InvalidOptionError(
        `invokeWebMCPTool: the page registered no WebMCP tool named "${toolName}"; page.listWebMCPTools() lists the ones it has.`,
      );
    if (matching.length > 1)
      throw new InvalidOptionError(
        `invokeWebMCPTool: ${matching.length} frames registered a tool named "${toolName}"; pass options.frameId to pick one.`,
      );
    frame = page.frameById(matching[0]!.frameId);
    if (!frame) throw new InvalidOptionError(`invokeWebMCPTool: the frame that registered "${toolName}" went away.`);
  }
  const session = frame.session;
  const state = stateOf(session);
  let invocationId: string;
  try {
    // The answer comes as an event, which Chrome sends only while the domain is on.
    await (state.enabled ?? toolsOf(session, page.defaultTimeoutMs));
    state.invoking++;
    ({ invocationId } = await session
      .send('WebMCP.invokeTool', { frameId: frame.id, toolName, input }, { timeoutMs: page.defaultTimeoutMs })
      .finally(() => state.invoking--));
  } catch (error) {
    if (error instanceof ProtocolError && /tool not found/i.test(error.message)) {
      throw new InvalidOptionError(
        `invokeWebMCPTool: the frame ${frame.url()} registered no WebMCP tool named "${toolName}"; page.listWebMCPTools() lists the ones it has.`,
      );
    }
    throw unsupported(error, `Cannot invoke the WebMCP tool "${toolName}"`);
  }
  const result = new Promise<WebMCPToolResult>((resolve, reject) => {
    const early = state.early.get(invocationId);
    if (early) {
      state.early.delete(invocationId);
      return resolve(early);
    }
    const timer = setTimeout(() => {
      state.waiting.delete(invocationId);
      reject(new TimeoutError(`The WebMCP tool "${toolName}" did not answer within ${timeoutMs} ms.`, timeoutMs));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      state.waiting.delete(invocationId);
    };
    state.waiting.set(invocationId, {
      resolve: (value) => (done(), resolve(value)),
      reject: (error) => (done(), reject(error)),
    });
  });
  // A caller that never looks at the result must not see its timeout as an unhandled rejection.
  result.catch(() => undefined);
  return {
    invocationId,
    toolName,
    frameId: frame.id,
    result,
    cancel: async () => {
      await session.send('WebMCP.cancelInvocation', { invocationId }, { timeoutMs: page.defaultTimeoutMs });
    },
  };
}
