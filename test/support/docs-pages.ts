// The pages of the docs and their fenced blocks, for test/project/docs.test.ts (checks) and
// test/project/docs-journeys.test.ts (runs): the README, docs/*.md and the examples' READMEs.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const EXAMPLES = readdirSync(path.join(ROOT, 'examples')).filter((name) => existsSync(path.join(ROOT, 'examples', name, 'README.md')));

export const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...EXAMPLES.map((name) => `examples/${name}/README.md`),
];

export interface Block {
  page: string;
  line: number;
  lang: string;
  code: string;
  /** What the HTML comment just before the block says: `run`, `start "…"`, `skip (…)`. */
  marker?: string;
}

function blocksOf(page: string): Block[] {
  const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  const out: Block[] = [];
  let open: Block | undefined;
  for (const [index, line] of lines.entries()) {
    const fence = /^```(\w*)\s*$/.exec(line);
    const before = lines
      .slice(0, index)
      .reverse()
      .find((each) => each.trim() !== '');
    const marker = /^<!-- test: (.*) -->$/.exec(before?.trim() ?? '')?.[1];
    if (fence && !open) open = { page, line: index + 1, lang: fence[1] ?? '', code: '', marker };
    else if (fence && open) {
      out.push(open);
      open = undefined;
    } else if (open) open.code += `${line}\n`;
  }
  return out;
}

export const BLOCKS = PAGES.flatMap(blocksOf);

/** Blocks a reader is meant to run: marked `run` or `start "…"`. */
export const runnable = (block: Block): boolean => block.marker !== undefined && !block.marker.startsWith('skip');
