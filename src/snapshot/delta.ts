// The delta view: what changed between two full page texts of one page, small enough that an agent
// that acts and looks again pays only for the difference, and exact: applyDelta(previous, delta)
// gives the new text byte for byte.
//
// An id stays with its element from read to read (injected/engine/ids.ts), so an unchanged line is
// the same text in both, id included, and lines are matched whole, by a shortest edit script (Myers):
// a line that kept its id but says something else is its element changed; a new element is a line
// added, with a new id; one the page dropped, or replaced with another, a line removed.
//
// Format: a first line `# delta since the previous page text: <counts>`, then hunks.
// Ids are written as in the text: [N] in the top document, [F-N] in frame F (see ids.ts).
//   @ after [F-N]      (or `@ top`) where the hunk goes: after the previous text's line [F-N]
//   ~ <line>           the next previous line, the same id, changed into <line> (its indentation too)
//   - [F-N] <text>     the next previous line, [F-N], was removed
//   + <line>           <line> was added here
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
  if (!head.startsWith(DELTA_HEAD))
    throw new Error('applyDelta: this is not a page text delta (it must start with "# delta" or "# page text").');
  const old = splitLines(previous);
  const index = new Map<string, number>();
  old.forEach((line, i) => {
    const id = ID.exec(line);
    if (id) index.set(lineId(id).join('-'), i);
  });
  const hunks: Array<{ after: number; ops: string[] }> = [];
  for (const line of delta.split('\n').slice(1)) {
    if (line.startsWith('@ ')) {
      const target = line.slice(2);
      const after = target === 'top' ? -1 : index.get(idKey(/^after (\[(?:\d+-)?\d+\])$/.exec(target)?.[1] ?? ''));
      if (after === undefined)
        throw new Error(`applyDelta: the previous text has no line ${target}; was the delta taken against another text?`);
      hunks.push({ after, ops: [] });
    } else if (/^[-~+] /.test(line) && hunks.length) {
      hunks[hunks.length - 1]!.ops.push(line);
    } else if (line) {
      throw new Error(`applyDelta: cannot read the line "${line}".`);
    }
  }
  const out: string[] = [];
  let i = 0;
  for (const hunk of hunks) {
    if (hunk.after < i - 1) throw new Error('applyDelta: the hunks are out of order.');
    while (i <= hunk.after) out.push(old[i++]!);
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
          throw new Error(
            `applyDelta: the delta removes ${formatId(...lineId(gone))} where the previous text has another line; was it taken against another text?`,
          );
        }
      } else {
        out.push(op.slice(2));
      }
      i++;
    }
  }
  while (i < old.length) out.push(old[i++]!);
  return out.join('\n');
}

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
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
    let value = codes.get(line);
    if (value === undefined) codes.set(line, (value = codes.size));
    return value;
  };
  const match = align(Int32Array.from(a, code), Int32Array.from(b, code), MAX_EDITS);
  if (!match) return null;

  const body: string[] = [];
  let [changed, added, removed] = [0, 0, 0];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && match[i] === j) {
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
      const goneId = gone === undefined ? null : idOf(gone);
      if (gone !== undefined && !goneId) return null;
      if (goneId && come !== undefined && String(idOf(come)) === String(goneId)) {
        body.push(`~ ${come}`);
        changed++;
        continue;
      }
      if (gone !== undefined) {
        body.push(`- ${gone.trimStart()}`);
        removed++;
      }
      if (come !== undefined) {
        body.push(`+ ${come}`);
        added++;
      }
    }
  }
  return [`${DELTA_HEAD} ${changed} changed, ${added} added, ${removed} removed`, ...body].join('\n');
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
