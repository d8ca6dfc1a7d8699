// `npm run check:structure` (and test/project/structure.test.ts): the rules of the house that a reader
// would otherwise have to take on trust, checked over the sources as the TypeScript compiler reads
// their imports (type-only ones included).
// - no import circle in src/;
// - no file in src/ past MAX_LINES;
// - page-side code (src/injected/) imports nothing from outside its folder;
// - the env is read in one place: src/env/choose.ts;
// - data flows one way through the layers (LAYERS): a file imports from its own layer or below;
// - no class of ours is patched from outside (a prototype assigned to, a `declare module` of our
//   own files): a surface that differs is a subclass (src/stagehand/page.ts). Page code
//   (src/injected/) may patch the page's own classes.

import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const INJECTED = path.join(SRC, 'injected');
const CHOOSER = path.join(SRC, 'env', 'choose.ts');
export const MAX_LINES = 400;

/**
 * The layers, lowest first: the folders (and top-level files) of src/ in each. The page scripts and
 * their bundles sit at the bottom: host code may read their types and helpers, never the reverse.
 */
const LAYERS: string[][] = [
  [
    'util',
    'errors.ts',
    'wireErrors.ts',
    'types.ts',
    'budgetTypes.ts',
    'contextTypes.ts',
    'locatorTypes.ts',
    'screenshotTypes.ts',
    'logger.ts',
    'generated',
    'injected',
  ],
  ['cdp'],
  ['browser', 'relay'],
  ['driver'],
  // The trace recorder (context.tracing): a listener on the driver's instrumentation seam, which does not know it.
  ['trace'],
  ['snapshot'],
  ['llm'],
  ['extract'],
  ['act'],
  ['hosted/client'],
  ['env'],
  // The agent loop: what it needs of the instance that runs it comes through AgentHost and
  // AgentSetup (agent/host.ts, agent/agent.ts), so it never imports the Stagehand adapter above it.
  ['agent'],
  ['sdkOptions.ts', 'sdkCalls.ts', 'sdkCore.ts', 'sdk.ts', 'stagehand', 'extension.ts', 'extensionRelay.ts', 'publicApi.ts', 'index.ts'],
  ['mcp', 'hosted/server', 'batch'],
  ['cli'],
];

/** The layer of a file of src/: its index in LAYERS. */
function layerOf(file: string): number {
  const parts = path.relative(SRC, file).split(path.sep);
  const name = parts[0] === 'hosted' ? `hosted/${parts[1]}` : parts[0]!;
  const found = LAYERS.findIndex((layer) => layer.includes(name));
  if (found < 0) throw new Error(`scripts/structure.ts: ${name} is in no layer; add it to LAYERS.`);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The files a source imports (static, dynamic and type-only), resolved; packages left out. */
function importsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const out: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const base = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '');
    const found = [`${base}.ts`, path.join(base, 'index.ts')].find((each) => existsSync(each));
    out.push(found ?? `${base} (unresolved)`);
  }
  return out;
}

/** Strongly connected components of more than one file (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfImport = component.length === 1 && (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || selfImport) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const PATCHES = [
  /\.prototype(\.[\w$]+|\[[^\]]+\])\s*=(?!=)/,
  /Object\.(defineProperty|defineProperties|assign)\(\s*[\w$.]+\.prototype\b/,
  /=\s*[\w$.]+\.prototype\s*;/,
];
const AUGMENTATION = /^\s*declare\s+module\s+['"]\./;

/** Lines of a source that patch a class from outside it, or augment one of our modules' declarations. */
export function patchesIn(text: string): Array<{ line: number; what: 'prototype' | 'augmentation' }> {
  const found: Array<{ line: number; what: 'prototype' | 'augmentation' }> = [];
  text.split('\n').forEach((line, at) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
    if (PATCHES.some((pattern) => pattern.test(line))) found.push({ line: at + 1, what: 'prototype' });
    if (AUGMENTATION.test(line)) found.push({ line: at + 1, what: 'augmentation' });
  });
  return found;
}

const ENV_READ = /\benv\s*[!=]==|[!=]==\s*['"](LOCAL|HOSTED|EXTENSION)['"]|['"](LOCAL|HOSTED|EXTENSION)['"]\s*[!=]==/;

export function structureProblems(): string[] {
  const problems: string[] = [];
  const shown = (file: string) => path.relative(ROOT, file);
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const imports = importsOf(file, text);
    graph.set(file, imports);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) problems.push(`${shown(file)} has ${lines} lines (at most ${MAX_LINES}): split it by concern.`);
    for (const target of imports) {
      if (target.endsWith('(unresolved)')) {
        problems.push(`${shown(file)} imports ${shown(target)}, which does not exist.`);
        continue;
      }
      if (target.startsWith(SRC + path.sep) && layerOf(target) > layerOf(file)) {
        problems.push(`${shown(file)} imports ${shown(target)}, from a layer above its own (see LAYERS).`);
      }
      if (file.startsWith(INJECTED + path.sep) && !target.startsWith(INJECTED + path.sep)) {
        problems.push(`${shown(file)} runs in the page but imports ${shown(target)}, from outside src/injected/.`);
      }
    }
    if (!file.startsWith(INJECTED + path.sep)) {
      for (const { line, what } of patchesIn(text)) {
        problems.push(
          what === 'prototype'
            ? `${shown(file)}:${line} assigns to a class's prototype; give the surface a subclass instead (src/stagehand/page.ts).`
            : `${shown(file)}:${line} augments one of our modules (declare module); declare the members in a subclass instead.`,
        );
      }
    }
    if (file !== CHOOSER) {
      text.split('\n').forEach((line, at) => {
        if (ENV_READ.test(line))
          problems.push(`${shown(file)}:${at + 1} reads the env; only src/env/choose.ts may (ask the Environment instead).`);
      });
    }
  }
  for (const circle of circles(graph)) problems.push(`An import circle: ${circle.map(shown).join(' → ')}.`);
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = structureProblems();
  for (const problem of problems) console.error(problem);
  console.log(
    problems.length
      ? `${problems.length} problem(s).`
      : 'The structure holds: one-way layers, no circles, no file over 400 lines, page code self-contained, env read in one place.',
  );
  process.exitCode = problems.length ? 1 : 0;
}
