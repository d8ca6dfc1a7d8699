import type { Frame } from '../driver/frame.js';
import { callPageScript } from './call.js';
import { idKey } from './ids.js';
import type { CaptureOptions, CaptureResult } from '../injected/reader/types.js';

/** One captured frame: its ordinal (the F of `[F-N]`), and where it sits in its parent. */
export interface FramePart {
  ordinal: number;
  frame: Frame;
  /** The engine that read it (its objectId): the ids are that document's, and no later one's. */
  engine: string;
  result: CaptureResult;
  /** The parent frame's part and the node number of this frame's Iframe line there. */
  parent: { part: FramePart; node: number } | null;
  /** For the top part: the XPath of its iframe ('' for the page's own document). */
  prefix: string;
}

/**
 * The page as text plus the maps beside it: node id (`N` or `F-N`, see ids.ts) → absolute URL for
 * links, read at capture time, and → absolute XPath (crossing frames and shadow roots), built on
 * request, as the page is then, from the element each document keeps with its id
 * (injected/engine/ids.ts). An XPath is therefore there while its element is; after that it is
 * undefined.
 */
export class Snapshot {
  readonly #parts: Map<number, FramePart>;
  readonly #urls = new Map<string, string>();
  readonly #prefixes = new Map<FramePart, Promise<string | undefined>>();

  /** @internal */
  constructor(
    readonly text: string,
    parts: Iterable<FramePart>,
    private readonly timeoutMs: number,
  ) {
    this.#parts = new Map([...parts].map((part) => [part.ordinal, part]));
    for (const part of this.#parts.values()) {
      const links = part.result.links;
      for (let i = 0; i < links.length; i += 2) this.#urls.set(`${part.ordinal}-${links[i]}`, links[i + 1] as string);
    }
  }

  /** Absolute URL of a link node; undefined for nodes that are not links. */
  urlOf(id: string): string | undefined {
    return this.#urls.get(idKey(id));
  }

  /** Every link node id with its URL, in page order within each frame. */
  links(): ReadonlyMap<string, string> {
    return this.#urls;
  }

  /** Absolute XPath of the element behind a node id ("12", "1-12"); undefined if unknown or gone. */
  async xpathOf(id: string): Promise<string | undefined> {
    return (await this.xpathsOf([id])).get(idKey(id));
  }

  /** XPaths of many ids at once: one call per frame. Ids that are unknown or gone are left out. */
  async xpathsOf(ids: Iterable<string>): Promise<Map<string, string>> {
    const byPart = new Map<FramePart, Array<[string, number]>>();
    for (const raw of ids) {
      const id = idKey(raw);
      const match = /^(\d+)-(\d+)$/.exec(id); // idKey's form
      const part = match && this.#parts.get(Number(match[1]));
      if (!part) continue;
      const list = byPart.get(part) ?? [];
      list.push([id, Number(match[2])]);
      byPart.set(part, list);
    }
    const out = new Map<string, string>();
    await Promise.all(
      [...byPart].map(async ([part, list]) => {
        const [prefix, paths] = await Promise.all([
          this.#prefix(part),
          this.#ask(
            part,
            list.map(([, node]) => node),
          ),
        ]);
        if (prefix === undefined || !paths) return;
        list.forEach(([id], i) => {
          const path = paths[i];
          if (path) out.set(id, prefix + path);
        });
      }),
    );
    return out;
  }

  #prefix(part: FramePart): Promise<string | undefined> {
    let prefix = this.#prefixes.get(part);
    if (!prefix) {
      const parent = part.parent;
      prefix = parent
        ? Promise.all([this.#prefix(parent.part), this.#ask(parent.part, [parent.node])]).then(([above, paths]) =>
            above === undefined || !paths?.[0] ? undefined : above + paths[0],
          )
        : Promise.resolve(part.prefix);
      this.#prefixes.set(part, prefix);
    }
    return prefix;
  }

  /** Asks the frame for the XPaths of its nodes; null once its document moved on (a new one has ids of its own). */
  async #ask(part: FramePart, nodes: number[]): Promise<Array<string | null> | null> {
    if (part.frame.isDetached()) return null;
    try {
      const engine = await part.frame.engine(this.timeoutMs);
      if (engine.objectId !== part.engine) return null;
      const options: CaptureOptions = {
        mode: 'xpaths',
        key: '',
        ids: nodes,
        frame: part.ordinal,
        frameKeys: [],
        rootLine: false,
        smallDocument: 0,
      };
      return await callPageScript<Array<string | null> | null>(part.frame, engine, options, [{ value: null }], this.timeoutMs);
    } catch {
      // The frame went away or navigated: its elements are gone with it.
      return null;
    }
  }
}
