// The docs' commands, run as a reader runs them in a clone: each page's runnable blocks in order,
// against fixture pages and the fake model (test/support/docs-journeys.ts says what stands in for
// the internet). test/project/docs.test.ts checks that every shell block is marked run, start or skip.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACK_DEADLINE_MS, packs, runJourney } from '../support/docs-journeys.js';
import { BLOCKS, ROOT, runnable } from '../support/docs-pages.js';

const journeys = [...new Set(BLOCKS.filter(runnable).map((block) => block.page))];
// Where the blocks run (what they write stays there), inside the clone as a reader's shell would be.
const RUN_DIR = path.join(ROOT, 'test', '.docs-run');
afterAll(() => rmSync(RUN_DIR, { recursive: true, force: true }));

describe('the docs, run', () => {
  it('have runnable blocks on the pages of each journey', () => {
    expect(journeys).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/cli.md',
        'docs/hosted.md',
        'docs/function.md',
        'docs/mcp.md',
        'docs/migrating-from-stagehand-3.md',
        'examples/extension/README.md',
      ]),
    );
  });

  it('run `npx tendril` in this clone, from a folder of it, as the pages write it', () => {
    mkdirSync(RUN_DIR, { recursive: true });
    const usage = execFileSync('npx', ['tendril', '--help'], {
      cwd: RUN_DIR,
      encoding: 'utf8',
      env: { ...process.env, npm_config_yes: 'true' },
    });
    expect(usage).toMatch(/^Usage: tendril <command>/);
  }, 120_000);

  for (const page of journeys) {
    const blocks = BLOCKS.filter((block) => block.page === page && runnable(block));
    it(
      `${page}: the commands run as written`,
      async () => {
        await runJourney(ROOT, blocks);
        if (page === 'examples/extension/README.md') {
          // What the page says the build makes is what it makes (to a rounding).
          const said = Number(/`worker\.js` comes to about ([\d.]+) MB/.exec(readFileSync(path.join(ROOT, page), 'utf8'))![1]) * 1e6;
          expect(Math.abs(statSync(path.join(ROOT, 'dist', 'extension', 'worker.js')).size - said) / said).toBeLessThan(0.05);
        }
      },
      300_000 + (blocks.some(packs) ? PACK_DEADLINE_MS : 0),
    );
  }
});
