// Splits page text that is too large for one model call. Splits fall on line boundaries (one element
// a line), and each chunk after the first opens with the lines of the elements enclosing its first
// line, so the model still knows it is inside "table: Prices" or "main". Nothing is dropped: a single
// line larger than a chunk is cut into pieces, each carried by a chunk of its own.

import { estimateTokens } from '../llm/budget.js';

export interface Chunk {
  /** The chunk's text: context lines first, then its own lines. */
  text: string;
  /** How many of the leading lines are repeated context. */
  contextLines: number;
}

interface Open {
  indent: number;
  line: string;
  tokens: number;
}

export function splitIntoChunks(text: string, budget: number): Chunk[] {
  if (estimateTokens(text) <= budget) return [{ text, contextLines: 0 }];
  const chunks: Chunk[] = [];
  const ancestors: Open[] = [];
  let lines: string[] = [];
  let tokens = 0;
  let context = 0;
  const flush = () => {
    if (lines.length > context) chunks.push({ text: lines.join('\n'), contextLines: context });
    lines = [];
    tokens = 0;
    context = 0;
  };
  const open = () => {
    // Nearest ancestors first, as many as fit in half the budget; the outermost go first when not.
    let room = Math.floor(budget / 2);
    const kept: Open[] = [];
    for (let i = ancestors.length - 1; i >= 0; i--) {
      const ancestor = ancestors[i] as Open;
      if (ancestor.tokens > room) break;
      room -= ancestor.tokens;
      kept.unshift(ancestor);
    }
    lines = kept.map((ancestor) => ancestor.line);
    tokens = kept.reduce((sum, ancestor) => sum + ancestor.tokens, 0);
    context = lines.length;
  };
  for (const line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    while (ancestors.length && (ancestors[ancestors.length - 1] as Open).indent >= indent) ancestors.pop();
    const cost = estimateTokens(line) + 1;
    if (tokens + cost > budget && lines.length > context) {
      flush();
      open();
    } else if (lines.length === 0) {
      open();
    }
    if (tokens + cost <= budget) {
      lines.push(line);
      tokens += cost;
    } else {
      for (const piece of cutLine(line, indent, Math.max(budget - tokens, Math.floor(budget / 2)))) {
        if (lines.length > context && tokens + estimateTokens(piece) + 1 > budget) {
          flush();
          open();
        }
        lines.push(piece);
        tokens += estimateTokens(piece) + 1;
      }
    }
    ancestors.push({ indent, line, tokens: cost });
  }
  flush();
  return chunks;
}

/** A line too long for any chunk, as pieces of at most `room` tokens, cut at spaces where possible. */
function cutLine(line: string, indent: number, room: number): string[] {
  const pad = ' '.repeat(indent);
  const pieces: string[] = [];
  let rest = line.trimStart();
  let first = true;
  while (rest) {
    const prefix = first ? pad : `${pad}(continued) `;
    const limit = Math.max(16, room - estimateTokens(prefix) - 1);
    let end = Math.min(rest.length, limit * 3);
    while (end > 1 && estimateTokens(rest.slice(0, end)) > limit) end = Math.floor(end * 0.8);
    if (end < rest.length) {
      const space = rest.lastIndexOf(' ', end);
      if (space > end / 2) end = space;
    }
    pieces.push(prefix + rest.slice(0, end));
    rest = rest.slice(end).trimStart();
    first = false;
  }
  return pieces;
}
