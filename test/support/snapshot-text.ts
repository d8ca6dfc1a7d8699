// Reading the pageText of extract() / captureSnapshot() in tests. One node per line:
//   <indent>[<N>] <role>[: <name>][ [state]]...   (the top document)
//   <indent>[<F>-<N>] <role>[: <name>][ [state]]... (frame F)
// Helpers match roles and names, never exact ids.

const LINE = /^( *)\[(?:(\d+)-)?(\d+)\] ([^:\[]+?)(?:: (.*?))?((?: \[[^\]]+\])*)$/;

export interface Line {
  /** Position among the non-empty lines. */
  index: number;
  /** Number of leading spaces. */
  indent: number;
  frame: number;
  node: number;
  /** "F-N", what xpathOf / urlOf take. */
  id: string;
  role: string;
  name: string | undefined;
  /** Contents of each [state] token: "checked", "level=3", 'value="x"'. */
  states: string[];
  raw: string;
}

export interface Parsed {
  lines: Line[];
  /** Non-empty lines that do not follow the grammar. */
  unparsed: string[];
}

export function parse(pageText: string): Parsed {
  const lines: Line[] = [];
  const unparsed: string[] = [];
  for (const raw of pageText.split('\n')) {
    if (raw.trim() === '') continue;
    const match = LINE.exec(raw);
    if (!match) {
      unparsed.push(raw);
      continue;
    }
    const [, spaces, frame, node, role, name, states] = match;
    lines.push({
      index: lines.length,
      indent: spaces!.length,
      frame: Number(frame ?? 0),
      node: Number(node),
      id: `${frame ?? 0}-${node}`,
      role: role!,
      name,
      states: [...(states ?? '').matchAll(/ \[([^\]]+)\]/g)].map((m) => m[1]!),
      raw,
    });
  }
  return { lines, unparsed };
}

/** The lines that follow the grammar. */
export function lines(pageText: string): Line[] {
  return parse(pageText).lines;
}

type NameMatcher = string | RegExp | undefined;

function nameMatches(line: Line, name: NameMatcher): boolean {
  if (name === undefined) return true;
  if (typeof name === 'string') return (line.name ?? '').trim() === name;
  return name.test(line.name ?? '');
}

/** First line with this role (undefined: any role) and name (exact string after trim, or RegExp). */
export function findLine(pageText: string | Line[], role: string | undefined, name?: NameMatcher): Line | undefined {
  const all = typeof pageText === 'string' ? lines(pageText) : pageText;
  return all.find((line) => (role === undefined || line.role === role) && nameMatches(line, name));
}

export function findLines(pageText: string | Line[], role: string | undefined, name?: NameMatcher): Line[] {
  const all = typeof pageText === 'string' ? lines(pageText) : pageText;
  return all.filter((line) => (role === undefined || line.role === role) && nameMatches(line, name));
}

/** Like findLine, but throws with the text (so a failure shows what was there). */
export function mustFind(pageText: string, role: string | undefined, name?: NameMatcher): Line {
  const found = findLine(pageText, role, name);
  if (!found) {
    throw new Error(`no line with role ${role ?? '(any)'} and name ${String(name)} in pageText:\n${excerpt(pageText)}`);
  }
  return found;
}

/** The first line whose name contains `text` (any role). */
export function lineWithText(pageText: string | Line[], text: string): Line | undefined {
  const all = typeof pageText === 'string' ? lines(pageText) : pageText;
  return all.find((line) => (line.name ?? '').includes(text));
}

export function mustFindText(pageText: string, text: string): Line {
  const found = lineWithText(pageText, text);
  if (!found) throw new Error(`no line whose name contains "${text}" in pageText:\n${excerpt(pageText)}`);
  return found;
}

/** The nearest preceding line with a smaller indent: the emitted parent. */
export function parentOf(all: Line[], line: Line): Line | undefined {
  for (let i = line.index - 1; i >= 0; i--) {
    if (all[i]!.indent < line.indent) return all[i];
  }
  return undefined;
}

/** Emitted ancestors, nearest first. */
export function ancestorsOf(all: Line[], line: Line): Line[] {
  const result: Line[] = [];
  for (let current = parentOf(all, line); current; current = parentOf(all, current)) result.push(current);
  return result;
}

/** The lines below `line` (more indented, before the next line at its level or above). */
export function descendantsOf(all: Line[], line: Line): Line[] {
  const result: Line[] = [];
  for (let i = line.index + 1; i < all.length && all[i]!.indent > line.indent; i++) result.push(all[i]!);
  return result;
}

export function hasState(line: Line, state: string): boolean {
  return line.states.includes(state);
}

/** The value of a `[key="value"]` state, or undefined. */
export function stateValue(line: Line, key: string): string | undefined {
  for (const state of line.states) {
    if (state.startsWith(`${key}="`) && state.endsWith('"')) return state.slice(key.length + 2, -1);
  }
  return undefined;
}

/** How many times `needle` occurs in `haystack`. */
export function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** The pageText, shortened for error messages. */
export function excerpt(pageText: string, max = 6000): string {
  return pageText.length <= max ? pageText : `${pageText.slice(0, max)}\n… (${pageText.length - max} more characters)`;
}

/**
 * Grammar problems of a whole pageText (empty when it is well formed): unparsable lines, a first
 * line that is not the main frame's RootWebArea, indents that jump by more than one level (one
 * space each), StaticText without text.
 */
export function grammarProblems(pageText: string): string[] {
  const { lines: all, unparsed } = parse(pageText);
  const problems = unparsed.map((raw) => `does not follow the grammar: ${JSON.stringify(raw)}`);
  if (all.length === 0) return [...problems, 'no lines at all'];
  const first = all[0]!;
  if (first.indent !== 0 || first.role !== 'RootWebArea' || first.frame !== 0) {
    problems.push(`first line is not the main frame's RootWebArea at indent 0: ${JSON.stringify(first.raw)}`);
  }
  for (const line of all) {
    if (line.index > 0 && line.indent === 0) problems.push(`second line at indent 0: ${JSON.stringify(line.raw)}`);
    const previous = all[line.index - 1];
    if (previous && line.indent > previous.indent + 1) problems.push(`indent jumps by more than one level: ${JSON.stringify(line.raw)}`);
    if (line.role === 'StaticText' && (line.name ?? '').trim() === '') problems.push(`empty StaticText: ${JSON.stringify(line.raw)}`);
  }
  return problems;
}
