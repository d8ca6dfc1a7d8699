import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { ProtocolError, TimeoutError } from '../errors.js';
import { isContextGone, objectGroup as newObjectGroup } from './evaluate.js';
import type { EngineHandle, Frame } from './frame.js';

/**
 * How far one DOM.describeNode of a too-deep document reaches. The protocol's encoder refuses a
 * reply nested past 300 levels: a plain element costs two (its object and its child list), a
 * shadow host four (its root sits beside its children without costing depth). 100 suits plain
 * DOM; a reply still too deep halves it for the rest of the scan.
 */
const SLICE_DEPTH = 100;
/** describeNode calls in flight at once while following the cut-off edges of a deep document. */
const IN_FLIGHT = 8;

/** Suspects looked at one by one; past this many, one scan of the whole document costs less. */
const PROBE_LIMIT = 200;

/**
 * Finds the closed shadow roots of the frame's document through DOM.describeNode (which sees what
 * page script cannot) and hands them to the frame's selector engine. Returns how many were new.
 * Costs one serialisation of the whole document, so callers decide when it is worth it.
 */
export async function registerClosedShadowRoots(frame: Frame, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const engine = await frame.engine(timeoutMs);
  const { session, contextId } = engine.world;
  const doc = await session.send('Runtime.evaluate', { expression: 'document', contextId }, { timeoutMs });
  if (!doc.result.objectId) return 0;
  let closed: number[];
  try {
    closed = await findClosedRoots(session, doc.result.objectId, deadline);
  } finally {
    void session.sendQuiet('Runtime.releaseObject', { objectId: doc.result.objectId });
  }
  return register(engine, closed, deadline);
}

/**
 * What the frame's last walk suspected of hosting a closed root, asked right behind the walk (on the
 * same session, it answers for that walk without waiting for the walk's reply): the backend ids of
 * the closed roots among those elements, read from Chrome's deep serialisation of them, which like
 * DOM.describeNode sees what page script cannot (undefined from a Chrome too old to serialise
 * nodes). Undefined when there are no suspects.
 */
export interface Suspects {
  closed: number[] | undefined;
}

export function askSuspects(engine: EngineHandle, objectGroup: string, timeoutMs: number): Promise<Suspects | undefined> {
  return engine.world.session
    .send(
      'Runtime.callFunctionOn',
      {
        functionDeclaration: `function () { const s = this.suspects(); return s.length ? s.slice(0, ${PROBE_LIMIT}) : undefined; }`,
        objectId: engine.objectId,
        objectGroup,
        // Depth 1: each element with its shadow root (mode and backend id), none of their children.
        serializationOptions: { serialization: 'deep', maxDepth: 1 },
      },
      { timeoutMs },
    )
    .then(({ result }) => {
      if (result.type === 'undefined') return undefined;
      const items = result.deepSerializedValue?.value as Protocol.Runtime.DeepSerializedValue[] | undefined;
      const closed = items?.flatMap((item) => {
        const root = (item.value as { shadowRoot?: { value?: { mode?: string; backendNodeId?: number } } | null } | undefined)?.shadowRoot
          ?.value;
        return root?.mode === 'closed' && typeof root.backendNodeId === 'number' ? [root.backendNodeId] : [];
      });
      return { closed };
    });
}

/**
 * Registers the closed roots among the elements the frame's last walk suspected of hosting one.
 * Returns how many were new, or null when one scan of the whole document is wanted instead: for
 * more suspects than are worth asking about, or a Chrome that does not serialise them. `asked`:
 * askSuspects' answer, when the caller asked already.
 */
export async function probeSuspects(
  frame: Frame,
  suspects: number,
  timeoutMs: number,
  asked?: Promise<Suspects | undefined>,
): Promise<number | null> {
  if (suspects > PROBE_LIMIT) return null;
  const deadline = Date.now() + timeoutMs;
  const engine = await frame.engine(timeoutMs);
  const objectGroup = newObjectGroup('shadow');
  try {
    const answer = await (asked ?? askSuspects(engine, objectGroup, timeoutMs)).catch((error: unknown) => {
      if (error instanceof TimeoutError || isContextGone(error)) throw error;
      return null;
    });
    if (answer === undefined) return 0;
    if (!answer?.closed) return null;
    return await register(engine, answer.closed, deadline);
  } finally {
    void engine.world.session.sendQuiet('Runtime.releaseObjectGroup', { objectGroup });
  }
}

/** Hands the closed roots (backend node ids) to the engine; returns how many it did not know. */
async function register(engine: EngineHandle, closed: number[], deadline: number): Promise<number> {
  if (closed.length === 0) return 0;
  const { session, contextId } = engine.world;
  const remaining = () => Math.max(1, deadline - Date.now());
  const objectGroup = newObjectGroup('shadow');
  try {
    const handles = await Promise.all(
      closed.map((backendNodeId) =>
        session.send('DOM.resolveNode', { backendNodeId, executionContextId: contextId, objectGroup }, { timeoutMs: remaining() }).then(
          ({ object }) => object.objectId,
          () => undefined,
        ),
      ),
    );
    const args = handles.filter((id): id is string => id !== undefined).map((objectId) => ({ objectId }));
    const { result } = await session.send(
      'Runtime.callFunctionOn',
      {
        functionDeclaration:
          'function (...roots) { const before = this.closedRootCount(); for (const r of roots) this.registerClosedShadowRoot(r); return this.closedRootCount() - before; }',
        objectId: engine.objectId,
        arguments: args,
        returnByValue: true,
      },
      { timeoutMs: remaining() },
    );
    return Number(result.value ?? 0);
  } finally {
    void session.sendQuiet('Runtime.releaseObjectGroup', { objectGroup });
  }
}

/**
 * Backend ids of the closed roots in the document. One describeNode of the whole tree answers for
 * any ordinary document; one too deep to serialise in a piece is read in slices instead.
 */
async function findClosedRoots(session: CdpSession, documentId: string, deadline: number): Promise<number[]> {
  const closed: number[] = [];
  try {
    const { node } = await session.send(
      'DOM.describeNode',
      { objectId: documentId, depth: -1, pierce: true },
      { timeoutMs: Math.max(1, deadline - Date.now()) },
    );
    collect(node, closed, []);
    return closed;
  } catch (error) {
    if (!isTooDeep(error)) {
      // A document too large to serialise keeps working without its closed roots.
      if (error instanceof TimeoutError || isContextGone(error)) throw error;
      return closed;
    }
  }
  return new SlicedScan(session, deadline).run(documentId);
}

/**
 * Reads a deep document a slice of SLICE_DEPTH levels at a time: every node whose children the
 * slice cut off is described again, by its backend id, as the top of a slice of its own. Slices
 * of different branches go in parallel. Half the time given is for slicing; whatever is found by
 * then is kept, so the caller still has time to use it.
 */
class SlicedScan {
  readonly #closed: number[] = [];
  readonly #stopAt: number;
  #depth = SLICE_DEPTH;
  #failure: { error: unknown } | undefined;

  constructor(
    private readonly session: CdpSession,
    private readonly deadline: number,
  ) {
    this.#stopAt = Date.now() + (deadline - Date.now()) / 2;
  }

  run(documentId: string): Promise<number[]> {
    type Top = { objectId: string } | { backendNodeId: number };
    const pending: Top[] = [{ objectId: documentId }];
    let active = 0;
    return new Promise<number[]>((resolve, reject) => {
      const pump = () => {
        while (this.#failure === undefined && active < IN_FLIGHT && pending.length && Date.now() < this.#stopAt) {
          const top = pending.pop()!;
          active++;
          this.#slice(top)
            .then(
              (node) => {
                const cut: number[] = [];
                if (node) collect(node, this.#closed, cut);
                for (const backendNodeId of cut) pending.push({ backendNodeId });
              },
              (error: unknown) => {
                this.#failure ??= { error };
              },
            )
            .finally(() => {
              active--;
              pump();
            });
        }
        if (active > 0) return;
        if (this.#failure) reject(this.#failure.error);
        else resolve(this.#closed);
      };
      pump();
    });
  }

  /** One slice below `top`; null when its node is gone or cannot be read even a few levels deep. */
  async #slice(top: { objectId: string } | { backendNodeId: number }): Promise<Protocol.DOM.Node | null> {
    for (;;) {
      const depth = this.#depth;
      try {
        const { node } = await this.session.send(
          'DOM.describeNode',
          { ...top, depth, pierce: true },
          { timeoutMs: Math.max(1, this.deadline - Date.now()) },
        );
        return node;
      } catch (error) {
        if (error instanceof TimeoutError || isContextGone(error)) throw error;
        if (!isTooDeep(error) || depth <= 1) return null;
        // Shadow hosts nest twice as deep per level; every later slice uses the smaller depth.
        if (this.#depth === depth) this.#depth = Math.max(1, depth >> 1);
      }
    }
  }
}

/**
 * Walks a described tree: closed roots go to `closed`, nodes whose children were cut off by the
 * depth to `cut`. A contentDocument belongs to another frame; that frame does its own.
 */
function collect(tree: Protocol.DOM.Node, closed: number[], cut: number[]): void {
  const stack: Protocol.DOM.Node[] = [tree];
  while (stack.length) {
    const each = stack.pop()!;
    for (const root of each.shadowRoots ?? []) {
      if (root.shadowRootType === 'closed') closed.push(root.backendNodeId);
      stack.push(root);
    }
    if (each.children) for (const child of each.children) stack.push(child);
    else if ((each.childNodeCount ?? 0) > 0) cut.push(each.backendNodeId);
  }
}

/** The reply nested deeper than the protocol's encoder allows ("CBOR: stack limit exceeded"). */
function isTooDeep(error: unknown): boolean {
  return error instanceof ProtocolError && /stack limit/i.test(error.message);
}
