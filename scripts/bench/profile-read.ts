// Where a read's time goes in the page, first read after load against the second (issue 37).
//
//   PAGE_SCRIPTS_READABLE=1 npm run gen --silent     # function names and lines in the profile
//   node --import tsx scripts/bench/profile-read.ts 0,1,2,3    # corpus articles by index (sorted ids)
//
// For each article: load it, let innerText read first (so the layout Chrome owes the page after
// `load` is paid before Tendril reads), then two extract() calls, each under the V8 sampling
// profiler of the page's renderer. Prints, for the first and the second reads summed, the sampled
// time by kind (the reader's own JavaScript, native DOM calls, (program), garbage collection, idle)
// and the functions whose self time differs most. Proportions within one run are what count: the
// machine may be loaded. Each profile is written to a temporary folder for DevTools.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sdk } from '../../src/index.js';
import { clientOptions, CORPUS_DIR, launchSpec, OFFLINE_ARG, PAGES_DIR } from './core/config.js';
import { startServer } from './core/server.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly scriptId: string; readonly url: string };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)']);
function kindOf(f: ProfileNode['callFrame']): string {
  if (SPECIAL.has(f.functionName)) return f.functionName;
  if (f.scriptId === '0') return 'native DOM calls';
  return f.url ? "the page's own scripts" : "the reader's JavaScript";
}

/** Adds the profile's sampled self time (µs) by kind and by function into the two maps. */
function add(profile: Profile, kinds: Map<string, number>, functions: Map<string, number>): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const us = profile.timeDeltas[i + 1] ?? 0;
    kinds.set(kindOf(f), (kinds.get(kindOf(f)) ?? 0) + us);
    const name = f.url ? "the page's own scripts" : f.functionName || '(anonymous)';
    functions.set(name, (functions.get(name) ?? 0) + us);
  });
}

const ms = (us: number) => `${(us / 1000).toFixed(1)} ms`;

async function main(): Promise<void> {
  const picks = (process.argv[2] ?? '0,1,2,3,4,5').split(',').map(Number);
  const ids = readdirSync(path.join(CORPUS_DIR, 'html'))
    .filter((n) => n.endsWith('.html.gz'))
    .map((n) => n.slice(0, -'.html.gz'.length))
    .sort();
  const out = mkdtempSync(path.join(os.tmpdir(), 'tendril-read-profile-'));
  const server = await startServer([
    { prefix: '/corpus/', dir: CORPUS_DIR },
    { prefix: '/', dir: PAGES_DIR },
  ]);
  const launch = launchSpec();
  const sdk = new Sdk(clientOptions({ ...launch, args: [...launch.args, OFFLINE_ARG] }));
  const reads = ['first', 'second'] as const;
  const wall = { first: 0, second: 0 };
  const kinds = { first: new Map<string, number>(), second: new Map<string, number>() };
  const functions = { first: new Map<string, number>(), second: new Map<string, number>() };
  try {
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(server.url('/basic.html'), { waitUntil: 'load' });
    await sdk.extract();
    await page.sendCDP('Profiler.enable');
    await page.sendCDP('Profiler.setSamplingInterval', { interval: 50 });
    for (const i of picks) {
      const id = ids[i];
      if (!id) throw new Error(`no corpus article ${i} (there are ${ids.length})`);
      await page.goto(server.url(`/corpus/html/${id}.html`), { waitUntil: 'load' });
      await page.sendCDP('Runtime.evaluate', { expression: 'document.body.innerText', returnByValue: true });
      for (const read of reads) {
        await page.sendCDP('Profiler.start');
        const t0 = performance.now();
        await sdk.extract();
        const took = performance.now() - t0;
        const { profile } = await page.sendCDP<{ profile: Profile }>('Profiler.stop');
        writeFileSync(path.join(out, `${i}-${id.slice(0, 12)}-${read}.cpuprofile`), JSON.stringify(profile));
        wall[read] += took;
        add(profile, kinds[read], functions[read]);
        process.stdout.write(`article ${i} ${id.slice(0, 12)} ${read} read: ${took.toFixed(1)} ms\n`);
      }
    }
  } finally {
    await sdk.close().catch(() => undefined);
    await server.close();
  }
  for (const read of reads) {
    const sorted = [...kinds[read]].sort((a, b) => b[1] - a[1]);
    process.stdout.write(
      `\n${read} reads: ${wall[read].toFixed(0)} ms in all; sampled: ${sorted.map(([k, us]) => `${k} ${ms(us)}`).join(', ')}\n`,
    );
  }
  const names = new Set([...functions.first.keys(), ...functions.second.keys()]);
  const diff = [...names]
    .map((n) => [n, functions.first.get(n) ?? 0, functions.second.get(n) ?? 0] as const)
    .sort((a, b) => b[1] - b[2] - (a[1] - a[2]))
    .slice(0, 15);
  process.stdout.write(
    `\nself time, first reads against second reads:\n${diff.map(([n, a, b]) => `  ${n}: ${ms(a)} / ${ms(b)}`).join('\n')}\n`,
  );
  process.stdout.write(`\nprofiles: ${out}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
