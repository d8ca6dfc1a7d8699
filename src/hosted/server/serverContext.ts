// The server's own driver on a session's browser, next to (not in the way of) the client's: the
// Context extract, act, observe and navigate run on, and the page each one works on, found within
// the operation's deadline whatever a client of connectUrl left the browser doing.

import { Context } from '../../driver/context.js';
import type { Page } from '../../driver/page.js';
import type { Logger } from '../../logger.js';
import { READER_SOURCE } from '../../generated/reader.js';
import { WATCH_SOURCE } from '../../generated/watch.js';
import { withDeadline } from '../../util/time.js';
import type { SessionRecord } from './sessions.js';
import { apiError } from './sessions.js';

export const BROWSER_TIMEOUT_MS = 30_000;
/**
 * How long navigate waits for a page to be prepared before it takes the page for one held by a
 * navigation that has not committed: preparing a page takes a few round trips (well under a
 * second on a loaded machine), while Chrome answers Page.getFrameTree only once a pending
 * navigation commits, and one to a server that never answers never does.
 */
const HELD_MS = 1500;
const HELD_HINT =
  'A navigation of the page has not committed (a client of connectUrl sent Page.navigate to a URL whose server does not answer?), ' +
  "and Chrome holds the page until it does. Navigate the page elsewhere (the server's navigate stops such a navigation), or try again once it has loaded.";

interface ServerContext {
  context: Context;
  started: Promise<Context>;
  /** The session of ours on each page target the context attached: its targetId to its sessionId. */
  attached: Map<string, string>;
}

const contexts = new WeakMap<SessionRecord, ServerContext>();

function contextOf(record: SessionRecord, logger: Logger): ServerContext {
  let known = contexts.get(record);
  if (known) return known;
  // The session's domainPolicy on the server's own driver too: an act() the server runs fails with
  // DomainPolicyError and leaves the page where it was, rather than land on the proxy's refusal.
  const context = new Context(record.browser!, logger, {
    timeoutMs: BROWSER_TIMEOUT_MS,
    policy: record.domainPolicy,
    closedRootWatch: WATCH_SOURCE,
    reader: READER_SOURCE,
    egressProxy: true,
  });
  const attached = new Map<string, string>();
  const root = record.browser!.connection.rootSession;
  const off = root.on('Target.attachedToTarget', ({ sessionId, targetInfo }) => {
    if (targetInfo.type === 'page') attached.set(targetInfo.targetId, sessionId);
  });
  const started = context.start().then(() => context);
  started.catch(() => {
    off();
    contexts.delete(record);
  });
  known = { context, started, attached };
  contexts.set(record, known);
  return known;
}

/**
 * The page an operation works on (`pageId`, or the active page), within `timeoutMs`. `stopHeld`
 * (navigate, which replaces the page's document anyway): a page still unprepared after HELD_MS has
 * its pending navigation stopped, so that Chrome lets it go.
 */
export async function pageOf(
  record: SessionRecord,
  pageId: string | undefined,
  logger: Logger,
  timeoutMs: number,
  stopHeld = false,
): Promise<Page> {
  const server = contextOf(record, logger);
  const found = (async () => {
    const context = await server.started;
    // The client may have opened the page a moment ago: give our side of the browser time to attach it.
    const page = pageId ? await context.pageOfTarget(pageId, Math.min(5000, timeoutMs)) : context.activePage();
    if (!page) throw apiError('not_found', pageId ? `The session has no page ${pageId}.` : 'The session has no open page.');
    return page;
  })();
  const timer = stopHeld ? setTimeout(() => stopHeldNavigations(server, record, logger), HELD_MS) : undefined;
  try {
    return await withDeadline(found, timeoutMs, "Preparing the session's page", HELD_HINT);
  } finally {
    clearTimeout(timer);
  }
}

function stopHeldNavigations(server: ServerContext, record: SessionRecord, logger: Logger): void {
  const ready = new Set(server.context.pages().map((page) => page.id));
  const connection = record.browser?.connection;
  for (const [targetId, sessionId] of server.attached) {
    if (ready.has(targetId)) continue;
    const session = connection?.session(sessionId);
    if (!session || session.detached) continue;
    logger.info('hosted', 'A page of the session was held by a navigation that had not committed; navigate stopped it', {
      session: record.id,
      target: targetId,
    });
    void session.sendQuiet('Page.stopLoading');
  }
}
