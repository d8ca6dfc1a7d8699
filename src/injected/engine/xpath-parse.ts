// A parser for the small XPath subset we can evaluate over the composed tree ourselves. Native
// document.evaluate cannot see into shadow roots, so this subset is what makes shadow-piercing XPath work.
// Anything outside it fails to parse; the caller decides whether that is a syntax error or just "no match".

export type Axis = 'child' | 'descendant' | 'descendant-or-self' | 'self' | 'parent';

export type NodeTest =
  | { kind: 'node' } // node(): also keeps the document and shadow roots
  | { kind: 'element' } // *
  | { kind: 'name'; name: string };

export type Predicate =
  // `fromEnd` counts back from last(): [last()] is fromEnd 0, [last()-1] is fromEnd 1.
  | { kind: 'position'; index: number; fromEnd: boolean }
  | { kind: 'attr'; name: string; value: string | null }
  | { kind: 'name'; fn: 'name' | 'local-name'; value: string };

export interface Step {
  /** '//' means descendant-or-self::node() runs first; '' only for a leading relative step. */
  separator: '' | '/' | '//';
  axis: Axis;
  test: NodeTest;
  predicates: Predicate[];
  /** The step's own text, kept verbatim so a frame hop can hand the rest on unchanged. */
  source: string;
}

export type ParseResult = { ok: true; steps: Step[] } | { ok: false; error: string };

class ParseError extends Error {}

const NAME = /^[A-Za-z_\u00B7-\uFFFF][\w.\-\u00B7-\uFFFF]*/;
const AXES: readonly Axis[] = ['child', 'descendant', 'descendant-or-self', 'self', 'parent'];

export function parseXPath(expr: string): ParseResult {
  try {
    return { ok: true, steps: parseSteps(expr) };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, error: e.message };
    throw e;
  }
}

function fail(message: string, offset: number): never {
  throw new ParseError(`${message} at offset ${offset}`);
}

function parseSteps(expr: string): Step[] {
  const steps: Step[] = [];
  let pos = skipSpace(expr, 0);
  if (pos >= expr.length) fail('empty XPath', pos);
  let separator: Step['separator'] = '';
  for (;;) {
    if (expr.startsWith('//', pos)) {
      separator = '//';
      pos += 2;
    } else if (expr[pos] === '/') {
      separator = '/';
      pos += 1;
    } else if (steps.length) {
      fail(`unexpected "${expr[pos]}"`, pos);
    }
    const start = skipSpace(expr, pos);
    const end = stepEnd(expr, start);
    const body = expr.slice(start, end).trim();
    if (!body) {
      // A bare "/" selects the document node itself, which no caller can use as an element.
      if (!steps.length && separator === '/' && start >= expr.length) {
        fail('"/" selects the document, not an element', 0);
      }
      fail('expected a step', start);
    }
    steps.push(parseStep(body, separator, start));
    pos = skipSpace(expr, end);
    if (pos >= expr.length) return steps;
  }
}

/** Index of the `/` that ends the step starting at `from` (or the end), skipping brackets and quotes. */
function stepEnd(expr: string, from: number): number {
  let depth = 0;
  for (let i = from; i < expr.length; i++) {
    const c = expr[i];
    if (c === '"' || c === "'") {
      const close = expr.indexOf(c, i + 1);
      if (close < 0) fail('unterminated string', i);
      i = close;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if (c === ']' || c === ')') {
      if (--depth < 0) fail(`unbalanced "${c}"`, i);
    } else if (c === '/' && depth === 0) {
      return i;
    }
  }
  if (depth > 0) fail('unclosed "[" or "("', expr.length);
  return expr.length;
}

function parseStep(body: string, separator: Step['separator'], offset: number): Step {
  const source = separator + body;
  if (body === '.') return { separator, axis: 'self', test: { kind: 'node' }, predicates: [], source };
  if (body === '..') return { separator, axis: 'parent', test: { kind: 'node' }, predicates: [], source };

  let pos = 0;
  let axis: Axis = 'child';
  const axisMatch = /^([a-z-]+)\s*::\s*/.exec(body);
  if (axisMatch) {
    if (!(AXES as readonly string[]).includes(axisMatch[1])) fail(`unsupported axis "${axisMatch[1]}"`, offset);
    axis = axisMatch[1] as Axis;
    pos = axisMatch[0].length;
  } else if (body[0] === '@') {
    fail('attribute steps select attributes, not elements', offset);
  }

  let test: NodeTest;
  const rest = body.slice(pos);
  const nodeFn = /^node\s*\(\s*\)/.exec(rest);
  if (nodeFn) {
    test = { kind: 'node' };
    pos += nodeFn[0].length;
  } else if (rest[0] === '*') {
    test = { kind: 'element' };
    pos += 1;
  } else {
    const name = NAME.exec(rest);
    if (!name) fail(`expected a name or "*", found "${rest[0] ?? ''}"`, offset + pos);
    // A name followed by "(" is a function call such as text(); we evaluate element steps only.
    if (/^\s*\(/.test(rest.slice(name[0].length))) fail(`unsupported node test "${name[0]}()"`, offset + pos);
    test = { kind: 'name', name: name[0] };
    pos += name[0].length;
  }

  const predicates: Predicate[] = [];
  for (;;) {
    pos = skipSpace(body, pos);
    if (pos >= body.length) break;
    if (body[pos] !== '[') fail(`unexpected "${body[pos]}"`, offset + pos);
    const close = predicateEnd(body, pos);
    predicates.push(parsePredicate(body.slice(pos + 1, close).trim(), offset + pos));
    pos = close + 1;
  }
  return { separator, axis, test, predicates, source };
}

function predicateEnd(body: string, open: number): number {
  let depth = 0;
  for (let i = open; i < body.length; i++) {
    const c = body[i];
    if (c === '"' || c === "'")
      i = body.indexOf(c, i + 1); // stepEnd already proved it is terminated
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return fail('unclosed "["', open);
}

const QUOTED = `(?:'([^']*)'|"([^"]*)")`;
const PRED_INDEX = /^(\d+)$/;
const PRED_POSITION = /^position\s*\(\s*\)\s*=\s*(\d+)$/;
const PRED_LAST = /^last\s*\(\s*\)(?:\s*-\s*(\d+))?$/;
// Attribute names may carry a prefix (xlink:href); getAttribute matches that qualified name as written.
const PRED_ATTR = new RegExp(`^@([A-Za-z_\\u00B7-\\uFFFF][\\w.:\\-\\u00B7-\\uFFFF]*)(?:\\s*=\\s*${QUOTED})?$`);
const PRED_NAME = new RegExp(`^(name|local-name)\\s*\\(\\s*\\)\\s*=\\s*${QUOTED}$`);

function parsePredicate(text: string, offset: number): Predicate {
  let m: RegExpExecArray | null;
  if ((m = PRED_INDEX.exec(text)) || (m = PRED_POSITION.exec(text))) return { kind: 'position', index: Number(m[1]), fromEnd: false };
  if ((m = PRED_LAST.exec(text))) return { kind: 'position', index: Number(m[1] ?? 0), fromEnd: true };
  if ((m = PRED_ATTR.exec(text))) return { kind: 'attr', name: m[1], value: m[2] ?? m[3] ?? null };
  if ((m = PRED_NAME.exec(text))) return { kind: 'name', fn: m[1] as 'name' | 'local-name', value: m[2] ?? m[3] };
  if (!text) fail('empty predicate "[]"', offset);
  return fail(`unsupported predicate "[${text}]"`, offset);
}

function skipSpace(s: string, pos: number): number {
  while (pos < s.length && /\s/.test(s[pos])) pos++;
  return pos;
}

/** Re-joins steps verbatim; a leading relative step becomes a child of the root, as it was of the document. */
export function stepsToSource(steps: readonly Step[]): string {
  return steps.map((s, i) => (i === 0 && s.separator === '' ? '/' + s.source : s.source)).join('');
}
