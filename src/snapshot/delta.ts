// The delta view: what changed between two full page texts of one page, small enough that an agent
// that acts and looks again pays only for the difference, and exact: applyDelta(previous, delta)
// gives the new text byte for byte.
//
// Ids are not stable under change: a line's id is its number in the frame's text, so one line added
// near the top moves every id below it, and a frame added moves the frame numbers after it. Lines
// are therefore matched by what they say (indentation, role, name and states, the id left out) with
// a shortest edit script (Myers), and ids that moved on unchanged lines are stated as ranges.
//
// Format: a first line `# delta since the previous page text: <counts>`, then hunks, then moves.
// Ids are written as in the text: [N] in the top document, [F-N] in frame F (see ids.ts).
//   @ after [F-N]      (or `@ top`) where the hunk goes: after the previous text's line [F-N]
//   ~ <line>           the next previous line changed into <line> (its new id and indentation)
//   - [F-N] <text>     the next previous line, [F-N], was removed
//   + <line>           <line> was added here
//   = [F-A]..[F-B] → [G-C]..[G-D]   unchanged lines [F-A] to [F-B] now have ids [G-C] to [G-D]
// When there is nothing to compare with, or a delta would not be shorter than the text, the answer
// is `# page text (<why>)` followed by the full text.

import { formatId, idKey, LINE_ID, lineId } from './ids.js';

const DELTA_HEAD = '# delta since the previous page text:';
const FULL_HEAD = '# page text';
/** Beyond this many line edits, a delta is no use (and the diff's memory grows with its square). */
const MAX_EDITS = 1500;

const ID = LINE_ID;

/** The answer for a page read for the first time. */
export function firstRead(text: string): string {
  return `${FULL_HEAD} (no previous text of this page to compare with)\n${text}`;
}

/** The delta from `previous` to `current`, or `current` whole (with its header) when that is shorter. */
export function diffPageText(previous: string, current: string): string {
  if (previous === current) return `${DELTA_HEAD} no change`;
  let delta: string | null = null;
  try {
    delta = encode(previous, current);
    // Only a delta that gives back the text exactly is ever handed out.
    if (delta !== null && applyDelta(previous, delta) !== current) delta = null;
  } catch {
    delta = null;
  }
  if (delta === null || delta.length >= current.length) return `${FULL_HEAD} (changed too much for a delta to be shorter)\n${current}`;
  return delta;
}

/**
 * The text a delta (or a full answer) describes, given the text it was taken against. Throws when
 * `delta` is not one, or was taken against another text.
 */
export function applyDelta(previous: string, delta: string): string {
  const head = delta.split('\n', 1)[0]!;
  if (head.startsWith(FULL_HEAD)) {
    const end = delta.indexOf('\n');
    return end < 0 ? '' : delta.slice(end + 1);
  }
  if (!head.startsWith(DELTA_HEAD)) throw new Error('applyDelta: this is not a page text delta (it must start with "# delta" or "# page text").');
  const old = splitLines(previous);
  const index = new Map<string, number>();
  old.forEach((line, i) => {
    const id = ID.exec(line);
    if (id) index.set(lineId(id).join('-'), i);
  });
  const hunks: Array<{ after: number; ops: string[] }> = [];
  const moves = new Map<number, Array<[from: number, to: number, frame: number, start: number]>>();
  for (const line of delta.split('\n').slice(1)) {
    if (line.startsWith('@ ')) {
      const target = line.slice(2);
      const after = target === 'top' ? -1 : index.get(idKey(/^after (\[(?:\d+-)?\d+\])$/.exec(target)?.[1] ?? ''));
      if (after === undefined) throw new Error(`applyDelta: the previous text has no line ${target}; was the delta taken against another text?`);
      hunks.push({ after, ops: [] });
    } else if (/^[-~+] /.test(line) && hunks.length) {
      hunks[hunks.length - 1]!.ops.push(line);
    } else if (line.startsWith('= ')) {
      const move = /^= \[(?:(\d+)-)?(\d+)\](?:\.\.\[(?:\d+-)?(\d+)\])? → \[(?:(\d+)-)?(\d+)\]/.exec(line);
      if (!move) throw new Error(`applyDelta: cannot read the line "${line}".`);
      const frame = Number(move[1] ?? 0);
      const list = moves.get(frame) ?? [];
      list.push([Number(move[2]), Number(move[3] ?? move[2]), Number(move[4] ?? 0), Number(move[5])]);
      moves.set(frame, list);
    } else if (line) {
      throw new Error(`applyDelta: cannot read the line "${line}".`);
    }
  }
  const moved = (line: string): string => {
    const id = ID.exec(line);
    if (!id) return line;
    const [frame, node] = lineId(id);
    const move = moves.get(frame)?.find(([from, to]) => node >= from && node <= to);
    return move ? `${id[1]}${formatId(move[2], node - move[0] + move[3])}${line.slice(id[0].length)}` : line;
  };
  const out: string[] = [];
  let i = 0;
  for (const hunk of hunks) {
    if (hunk.after < i - 1) throw new Error('applyDelta: the hunks are out of order.');
    while (i <= hunk.after) out.push(moved(old[i++]!));
    for (const op of hunk.ops) {
      if (op[0] === '+') {
        out.push(op.slice(2));
        continue;
      }
      if (i >= old.length) throw new Error('applyDelta: the delta removes more lines than the previous text has.');
      if (op[0] === '-') {
        const gone = ID.exec(op.slice(2));
        const there = ID.exec(old[i]!);
        if (gone && (!there || lineId(gone).join('-') !== lineId(there).join('-'))) {
          throw new Error(`applyDelta: the delta removes ${formatId(...lineId(gone))} where the previous text has another line; was it taken against another text?`);
        }
      } else {
        out.push(op.slice(2));
      }
      i++;
    }
  }
  while (i < old.length) out.push(moved(old[i++]!));
  return out.join('\n');
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/** A line as compared: without its id. */
function keyOf(line: string): string {
  const id = ID.exec(line);
  return id ? id[1] + line.slice(id[0].length + (line[id[0].length] === ' ' ? 1 : 0)) : line;
}

/** Indentation and role: a removed and an added line alike in these read as one line changed. */
function kindOf(line: string): string {
  const key = keyOf(line);
  const body = key.trimStart();
  return `${key.length - body.length}:${body.split(/[: ]/, 1)[0]}`;
}

function idOf(line: string): [frame: number, node: number] | null {
  const id = ID.exec(line);
  return id ? lineId(id) : null;
}

function encode(previous: string, current: string): string | null {
  const a = splitLines(previous);
  const b = splitLines(current);
  const codes = new Map<string, number>();
  const code = (line: string): number => {
    const key = keyOf(line);
    let value = codes.get(key);
    if (value === undefined) codes.set(key, (value = codes.size));
    return value;
  };
  const match = align(Int32Array.from(a, code), Int32Array.from(b, code), MAX_EDITS);
  if (!match) return null;

  const body: string[] = [];
  const moves = new Moves();
  let [changed, added, removed] = [0, 0, 0];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && match[i] === j) {
      if (!moves.note(idOf(a[i]!), idOf(b[j]!))) return null;
      i++;
      j++;
      continue;
    }
    const after = i - 1;
    const dels: string[] = [];
    while (i < a.length && match[i] === -1) dels.push(a[i++]!);
    const ins: string[] = [];
    const until = i < a.length ? match[i]! : b.length;
    while (j < until) ins.push(b[j++]!);
    if (!dels.length && !ins.length) return null; // cannot happen with a monotone alignment
    const anchor = after < 0 ? null : idOf(a[after]!);
    if (after >= 0 && !anchor) return null;
    body.push(anchor ? `@ after ${formatId(...anchor)}` : '@ top');
    for (let k = 0; k < Math.max(dels.length, ins.length); k++) {
      const gone = dels[k];
      const come = ins[k];
      if (gone !== undefined && come !== undefined && kindOf(gone) === kindOf(come)) {
        body.push(`~ ${come}`);
        changed++;
        continue;
      }
      if (gone !== undefined) {
        if (!idOf(gone)) return null;
        body.push(`- ${gone.trimStart()}`);
        removed++;
      }
      if (come !== undefined) {
        body.push(`+ ${come}`);
        added++;
      }
    }
  }
  const moveLines = moves.lines();
  const counts = `${changed} changed, ${added} added, ${removed} removed${moves.count ? `; ${moves.count} unchanged lines have new ids` : ''}`;
  return [`${DELTA_HEAD} ${counts}`, ...body, ...moveLines].join('\n');
}

/** Unchanged lines whose id changed, as ranges per frame of the previous text. */
class Moves {
  count = 0;
  readonly #open = new Map<number, { from: number; to: number; frame: number; start: number }>();
  readonly #done: Array<{ oldFrame: number; from: number; to: number; frame: number; start: number }> = [];

  /** False when a line has no id to move by. */
  note(before: [number, number] | null, after: [number, number] | null): boolean {
    if (!before || !after) return before === after;
    const [oldFrame, node] = before;
    const run = this.#open.get(oldFrame);
    if (before[0] === after[0] && before[1] === after[1]) {
      // Ranges must not take in lines that kept their ids: the run ends here.
      if (run) this.#close(oldFrame);
      return true;
    }
    this.count++;
    if (run && run.frame === after[0] && node > run.to && after[1] - node === run.start - run.from) {
      run.to = node;
      return true;
    }
    if (run) this.#close(oldFrame);
    this.#open.set(oldFrame, { from: node, to: node, frame: after[0], start: after[1] });
    return true;
  }

  lines(): string[] {
    for (const frame of [...this.#open.keys()]) this.#close(frame);
    return this.#done
      .sort((x, y) => x.oldFrame - y.oldFrame || x.from - y.from)
      .map(({ oldFrame, from, to, frame, start }) =>
        from === to
          ? `= ${formatId(oldFrame, from)} → ${formatId(frame, start)}`
          : `= ${formatId(oldFrame, from)}..${formatId(oldFrame, to)} → ${formatId(frame, start)}..${formatId(frame, start + to - from)}`,
      );
  }

  #close(oldFrame: number): void {
    const run = this.#open.get(oldFrame)!;
    this.#open.delete(oldFrame);
    this.#done.push({ oldFrame, ...run });
  }
}

/**
 * For each line of `a`, the line of `b` it is kept as (-1: removed), by a shortest edit script
 * (Myers' O((N+M)D) algorithm) after the common head and tail are set aside. Null past `maxEdits`.
 */
export function align(a: Int32Array, b: Int32Array, maxEdits: number): Int32Array | null {
  const match = new Int32Array(a.length).fill(-1);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) match[start] = start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) match[--endA] = --endB;
  const n = endA - start;
  const m = endB - start;
  if (n === 0 || m === 0) return match;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[start + x] === b[start + y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    // Step d's reach on each diagonal, for walking back: only diagonals -d..d are ever read.
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  if (found < 0) return null;
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const before = trace[d - 1]!;
    const reach = (k: number) => before[k + d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && reach(k - 1) < reach(k + 1));
    const fromK = down ? k + 1 : k - 1;
    const fromX = reach(fromK);
    const fromY = fromX - fromK;
    // The diagonal run after this step's edit (an insertion moves down, a removal right).
    const [edX, edY] = down ? [fromX, fromY + 1] : [fromX + 1, fromY];
    while (x > edX && y > edY) match[start + --x] = start + --y;
    x = fromX;
    y = fromY;
  }
  while (x > 0 && y > 0) match[start + --x] = start + --y;
  return match;
}
