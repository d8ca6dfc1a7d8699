import type { CaptureResult } from './page/types.js';

/** One captured frame: its ordinal (the F of `[F-N]`) and where its XPaths start. */
export interface FramePart {
  ordinal: number;
  result: CaptureResult;
  /** Absolute XPath of the frame's iframe element; '' for the top document. */
  prefix: () => string;
}

/**
 * The page as text plus the maps beside it: node id (`F-N`) → absolute XPath, crossing frames and
 * shadow roots, and → absolute URL for links. XPaths are kept as a compact table and spelled out
 * only for the ids asked about.
 */
export class Snapshot {
  readonly #parts: Map<number, FramePart>;
  readonly #urls = new Map<string, string>();

  /** @internal */
  constructor(
    readonly text: string,
    parts: Iterable<FramePart>,
  ) {
    this.#parts = new Map([...parts].map((part) => [part.ordinal, part]));
    for (const part of this.#parts.values()) {
      const links = part.result.links;
      for (let i = 0; i < links.length; i += 2) this.#urls.set(`${part.ordinal}-${links[i]}`, links[i + 1] as string);
    }
  }

  /** Absolute XPath of the element behind a node id such as "0-12"; undefined for unknown ids. */
  xpathOf(id: string): string | undefined {
    const found = this.#locate(id);
    if (!found) return undefined;
    const [part, node] = found;
    const entry = part.result.nodes[node];
    return entry === undefined ? undefined : part.prefix() + entryPath(part.result, entry);
  }

  /** Absolute URL of a link node; undefined for nodes that are not links. */
  urlOf(id: string): string | undefined {
    return this.#urls.get(normalise(id));
  }

  /** Every link node id with its URL, in page order within each frame. */
  links(): ReadonlyMap<string, string> {
    return this.#urls;
  }

  #locate(id: string): [FramePart, number] | undefined {
    const match = /^(\d+)-(\d+)$/.exec(normalise(id));
    if (!match) return undefined;
    const part = this.#parts.get(Number(match[1]));
    return part ? [part, Number(match[2])] : undefined;
  }
}

function normalise(id: string): string {
  return String(id).trim().replace(/^\[|\]$/g, '');
}

/** `/html/body/...` for an entry of one frame's XPath table. */
export function entryPath(result: CaptureResult, entry: number): string {
  const steps: string[] = [];
  for (let at = entry; at >= 0; at = result.xp[at * 2] as number) steps.push(result.xp[at * 2 + 1] as string);
  return '/' + steps.reverse().join('/');
}
