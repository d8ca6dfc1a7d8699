// The README and every page of docs/ keep their code honest: each TypeScript block type-checks
// against the package's own types, each JSON block parses, and each shell block names npm scripts
// that exist and `tendril` commands and flags that the command line knows. The blocks a reader is
// meant to run are run by docs-journeys.test.ts: every shell block says, in an HTML comment before it,
// whether it is run (`<!-- test: run -->`), started and left running for the page's later blocks
// (`<!-- test: start "what it prints once ready" -->`) or skipped, and why (`<!-- test: skip (…) -->`).

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BLOCKS, PAGES, ROOT } from '../support/docs-pages.js';

// Inside the repository, so that the checked blocks resolve `tendril` as the repository's tsconfig says.
const WORK = path.join(ROOT, 'test', '.docs-blocks');
const blocks = BLOCKS;

/**
 * What a block may use without declaring it: the names the pages' prose introduces (an Sdk, its
 * page, a model config...). Each is declared only when the block does not declare it itself.
 */
const GIVEN: Record<string, string> = {
  Sdk: "import { Sdk } from 'tendril';",
  z: "import { z } from 'zod';",
  sdk: "declare const sdk: import('tendril').Sdk;",
  page: "declare const page: import('tendril').Page;",
  other: "declare const other: import('tendril').Page;",
  frame: "declare const frame: import('tendril').Frame;",
  browser: "declare const browser: import('playwright-core').Browser;",
  playwrightPage: "declare const playwrightPage: import('playwright-core').Page;",
  puppeteerPage: "declare const puppeteerPage: import('puppeteer-core').Page;",
  chromium: "import { chromium } from 'playwright-core';",
  email: 'declare const email: string;',
  apiKey: 'declare const apiKey: string;',
  puppeteer: "import puppeteer from 'puppeteer-core';",
};

function prelude(code: string): string {
  return Object.entries(GIVEN)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code))
    .filter(
      ([name]) =>
        !new RegExp(`(import[^;]*\\b${name}\\b[^;]*from|\\b(const|let|var|function|class)\\s+\\{?[^=;]*\\b${name}\\b)`).test(code),
    )
    .map(([, declaration]) => declaration)
    .join('\n');
}

afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe('the docs', () => {
  it('have their reference in docs/, and a README that links every page of it', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const page of PAGES.filter((each) => each.startsWith('docs/'))) expect(readme).toContain(`(${page})`);
    expect(readme.length).toBeLessThan(12_000);
  });

  it("do not repeat a page's title as a heading of it", () => {
    for (const page of PAGES) {
      const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
      const title = lines.find((line) => line.startsWith('# '))?.slice(2);
      expect(
        lines.filter((line) => /^#{2,} /.test(line) && line.replace(/^#+ /, '') === title),
        page,
      ).toEqual([]);
    }
  });

  it('type-check every TypeScript block against the package', () => {
    const ts = blocks.filter((block) => block.lang === 'ts');
    expect(ts.length).toBeGreaterThan(10);
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    const files = ts.map((block, index) => {
      const file = path.join(WORK, `block${index}.ts`);
      writeFileSync(file, `${prelude(block.code)}\n${block.code}\nexport {};\n`);
      return { file, block };
    });
    writeFileSync(
      path.join(WORK, 'tsconfig.json'),
      JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { noEmit: true, noUnusedLocals: false }, include: ['*.ts'] }),
    );
    let output = '';
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(WORK, 'tsconfig.json')], {
        encoding: 'utf8',
      });
    } catch (error) {
      output = (error as { stdout?: string }).stdout ?? String(error);
    }
    // Each error, named by the page and line of its block.
    const errors = output
      .split('\n')
      .filter((line) => /error TS/.test(line))
      .map((line) => {
        const match = /block(\d+)\.ts\((\d+),/.exec(line);
        const hit = match ? files[Number(match[1])] : undefined;
        return hit ? `${hit.block.page}:${hit.block.line}: ${line.replace(/^.*?error /, 'error ')}` : line;
      });
    expect(errors).toEqual([]);
  }, 300_000);

  it('parse every JSON block', () => {
    for (const block of blocks.filter((each) => each.lang === 'json')) {
      expect(() => JSON.parse(block.code), `${block.page}:${block.line}`).not.toThrow();
    }
  });

  it('start every redis-server they show on loopback only: whoever reaches the queue or the cache may read and write it', () => {
    const lines = blocks
      .filter((block) => block.lang === 'sh')
      .flatMap((block) => block.code.split('\n').map((line, i) => ({ line, where: `${block.page}:${block.line + i}` })))
      .filter(({ line }) => /^\s*redis-server\b/.test(line.replace(/#.*$/, '')));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter(({ line }) => !/\s--bind 127\.0\.0\.1(\s|$)/.test(line)).map(({ where, line }) => `${where}: ${line}`)).toEqual([]);
  });

  it('name only npm scripts that exist and tendril commands and flags the command line knows', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
    );
    const help = new Map<string, string>();
    const usage = (command: string) => {
      if (!help.has(command)) {
        const args = command === 'hosted' ? ['hosted', 'serve', '--help'] : [command, '--help'];
        help.set(
          command,
          execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, encoding: 'utf8' }),
        );
      }
      return help.get(command)!;
    };
    const sh = blocks.filter((block) => block.lang === 'sh');
    expect(sh.length).toBeGreaterThan(3);
    // Every shell block says whether it runs here, and if not, why.
    expect(
      sh.filter((block) => !/^(run|start "[^"]+"|skip \(.+\))$/.test(block.marker ?? '')).map((block) => `${block.page}:${block.line}`),
    ).toEqual([]);
    for (const block of sh) {
      const where = `${block.page}:${block.line}`;
      for (const [, script] of block.code.matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `${where}: npm run ${script}`).toContain(script);
      for (const line of block.code.split('\n')) {
        const command = /(?:npx tendril|^tendril) (\w+)/.exec(line.replace(/#.*$/, ''))?.[1];
        if (!command) continue;
        const text = usage(command);
        for (const [flag] of line.replace(/#.*$/, '').matchAll(/(?<=\s)--[\w-]+/g))
          expect(text, `${where}: tendril ${command} ${flag}`).toContain(flag);
      }
    }
  }, 60_000);
});
