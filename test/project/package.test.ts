// The package as its users get it: the tarball `npm pack` makes (built once here), checked by
// publint and arethetypeswrong, installed into a scratch project, each entry imported from ESM and
// from CommonJS, and a file that uses the public API type-checked under moduleResolution node16
// and bundler (scripts/pack-check.mjs; `npm run pack:check` runs the same checks alone).

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTarball, pack } from '../../scripts/pack-check.mjs';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// Building, installing and type-checking take about two minutes on an idle 2-core machine, and
// several times that when other work shares it; nothing here waits on a timer.
const SLOW = 1_200_000;

let tarball: string;
let scratch: string;

const run = promisify(execFile);

async function node(args: string[]): Promise<string> {
  return (await run(process.execPath, args, { cwd: scratch, encoding: 'utf8' })).stdout;
}

async function typeCheck(config: string): Promise<string> {
  try {
    await run(process.execPath, [TSC, '-p', config], { cwd: scratch, encoding: 'utf8' });
    return '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    return `${stdout}${stderr}` || String(error);
  }
}

beforeAll(async () => {
  tarball = await pack();
  scratch = mkdtempSync(path.join(tmpdir(), 'tendril-install-'));
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  // From npm's cache: the package's dependencies and zod (its one required peer) are the repo's own.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: scratch });
}, SLOW);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (tarball) rmSync(path.dirname(tarball), { recursive: true, force: true });
});

describe('the packed package', () => {
  it(
    'gets no complaint from publint or arethetypeswrong, for any entry',
    async () => {
      expect(await checkTarball(tarball)).toEqual([]);
    },
    SLOW,
  );

  it('ships the rolled-up declarations and no internal ones', async () => {
    const files = (await run('tar', ['-tzf', tarball], { encoding: 'utf8' })).stdout.split('\n');
    for (const name of ['index.d.ts', 'index.d.cts', 'batch.d.ts', 'batch.d.cts', 'extension.d.ts', 'extension-relay.d.ts'])
      expect(files).toContain(`package/dist/${name}`);
    expect(files.filter((name) => name.startsWith('package/dist/types/') || name.startsWith('package/dist/api-temp/'))).toEqual([]);
  });

  it('imports every entry from ESM, and tendril and tendril/batch from CommonJS', async () => {
    const esm = await node([
      '--input-type=module',
      '-e',
      `const out = {};
       for (const name of ['tendril', 'tendril/batch', 'tendril/extension', 'tendril/extension-relay']) {
         const m = await import(name);
         out[name] = Object.keys(m).filter((key) => ['Sdk', 'BatchQueue', 'RelayBridge', 'TimeoutError'].includes(key)).sort();
       }
       console.log(JSON.stringify(out));`,
    ]);
    expect(JSON.parse(esm)).toEqual({
      tendril: ['Sdk', 'TimeoutError'],
      'tendril/batch': ['BatchQueue'],
      'tendril/extension': ['Sdk', 'TimeoutError'],
      'tendril/extension-relay': ['RelayBridge', 'TimeoutError'],
    });
    writeFileSync(
      path.join(scratch, 'require.cjs'),
      `const tendril = require('tendril');
       const batch = require('tendril/batch');
       let extension;
       try { require('tendril/extension'); } catch (error) { extension = error.code; }
       console.log(JSON.stringify({ Sdk: typeof tendril.Sdk, TimeoutError: typeof tendril.TimeoutError, BatchQueue: typeof batch.BatchQueue, extension }));`,
    );
    // The extension entries are ESM only (docs/extension.md): require() is refused by name.
    expect(JSON.parse(await node(['require.cjs']))).toEqual({
      Sdk: 'function',
      TimeoutError: 'function',
      BatchQueue: 'function',
      extension: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
  });

  it(
    'type-checks code that uses the public API under moduleResolution node16 and bundler, and from CommonJS',
    async () => {
      writeFileSync(
        path.join(scratch, 'use.ts'),
        `import { Sdk, TimeoutError, type Context, type Page, type SdkOptions } from 'tendril';
       import { BatchQueue, type BatchJob } from 'tendril/batch';
       import { Sdk as ExtensionSdk } from 'tendril/extension';
       import { RelayBridge } from 'tendril/extension-relay';
       import { z } from 'zod';

       const options: SdkOptions = { model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'key' } };
       export async function use(): Promise<string> {
         const sdk = new Sdk(options);
         await sdk.init();
         const page: Page = sdk.context.pages()[0]!;
         await page.goto('https://example.org');
         const { pageText } = await sdk.extract();
         const links = await sdk.extract('The links', z.object({ links: z.array(z.object({ url: z.string() })) }));
         const first: string | undefined = links.links[0]?.url;
         await sdk.close();
         return pageText + first;
       }
       export const job: BatchJob = { url: 'https://example.org', instruction: 'The title' };
       export const kinds = [TimeoutError, BatchQueue, ExtensionSdk, RelayBridge];
       // @ts-expect-error an internal of the Context is not in the published declarations
       export const internal = (context: Context) => context.guard;`,
      );
      writeFileSync(
        path.join(scratch, 'use.cts'),
        `import tendril = require('tendril');
       import batch = require('tendril/batch');
       export const sdk: tendril.Sdk = new tendril.Sdk({ env: 'LOCAL' });
       export const job: batch.BatchJob = { url: 'https://example.org' };`,
      );
      const compilerOptions = {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        types: ['node'],
      };
      const configs = {
        'tsconfig.node16.json': {
          compilerOptions: { ...compilerOptions, module: 'node16', moduleResolution: 'node16' },
          files: ['use.ts', 'use.cts'],
        },
        'tsconfig.bundler.json': {
          compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler' },
          files: ['use.ts'],
        },
      };
      for (const [name, config] of Object.entries(configs)) writeFileSync(path.join(scratch, name), JSON.stringify(config));
      expect(await typeCheck('tsconfig.node16.json')).toBe('');
      expect(await typeCheck('tsconfig.bundler.json')).toBe('');
    },
    SLOW,
  );
});
