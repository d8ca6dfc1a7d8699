// The docs' runnable blocks, run as a reader runs them in a clone of the repository, one page (a
// journey) at a time: shell blocks through bash, TypeScript blocks through tsx. What a reader would
// need the internet or a real key for comes from loopback instead, and nothing else is changed:
//   - https://example.org (and a bare example.org) is a fixture page like it (docs-example.html);
//   - the model is the fake model server: MODEL_BASE_URL and OPENAI_BASE_URL point at it, and so
//     does a server of the reader's own at http://127.0.0.1:8000/v1; the blocks' own `--model` is
//     sent. Shell blocks run with no provider key at all (OPENAI_API_KEY and MODEL_API_KEY empty),
//     so every command there takes the no-key path to a --base-url server; TypeScript blocks,
//     which pass `apiKey: process.env.OPENAI_API_KEY`, get a key in OPENAI_API_KEY;
//   - the docs' ports (3000, 3001 and 3002 hosted instances', 5005, 6379 Redis's, 8080 nginx's, 8931, 9333) are free ports of this run (PORT too, the function's
//     5005 by default), and TARGET_URL (the serverless function's page, https://example.com/ by
//     default) is the fixture page;
//   - `npx tendril` in this clone runs bin/tendril.js, the file npx runs in a clone (a test below runs
//     npx itself); anywhere else it is npx's own, so that a project that installed Tendril runs its bin;
//   - /path/to/tendril is a fresh clone of this one (the files git has, committed or not, so no dist/
//     and no generated page scripts; node_modules linked from here, as `npm ci` would install them), and
//     /path/to/your-project a new project (a package.json only), both in the OS's temp folder;
//   - npm installs from its cache where it can (as test/project/package.test.ts does), with no audit.
// A `start` block stays running, once it has printed what its marker says, until the page ends.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { startFixtureServers } from '../fixtures/server.js';
import type { Block } from './docs-pages.js';
import { startFakeModel, type FakeRequest } from './fake-model.js';

const BLOCK_DEADLINE_MS = 120_000;
/** A block that packs builds the package (prepack), as test/project/package.test.ts does, and is given as long. */
export const PACK_DEADLINE_MS = 1_200_000;
export const packs = (block: Block): boolean => /\bnpm pack\b/.test(block.code);

/** What /path/to/tendril stands for: see the header. */
function freshClone(root: string): string {
  const into = mkdtempSync(path.join(tmpdir(), 'tendril-clone-'));
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  for (const file of listed.split('\0')) {
    // A file deleted from the work tree is still in the index: a clone of this work tree has none.
    if (!file || !existsSync(path.join(root, file))) continue;
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    copyFileSync(path.join(root, file), path.join(into, file));
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(into, 'node_modules'));
  return into;
}

/** What /path/to/your-project stands for. */
function newProject(): string {
  const into = mkdtempSync(path.join(tmpdir(), 'tendril-your-project-'));
  writeFileSync(path.join(into, 'package.json'), `${JSON.stringify({ name: 'your-project', private: true }, null, 2)}\n`);
  return into;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A value of the JSON Schema the request asks for: the page's first link for ids and URLs, one element for `elements`. */
function instance(schema: unknown, key: string, request: FakeRequest): unknown {
  const link = /\[((?:\d+-)?\d+)\] link:/.exec(request.user)?.[1] ?? /\[((?:\d+-)?\d+)\]/.exec(request.user)?.[1] ?? '0';
  if (key === 'elementId') return link;
  if (key === 'arguments') return [];
  const node = (schema ?? {}) as {
    type?: string | string[];
    properties?: Record<string, unknown>;
    items?: unknown;
    enum?: unknown[];
    anyOf?: unknown[];
    format?: string;
  };
  if (node.anyOf) return instance(node.anyOf[0], key, request);
  if (node.enum) return node.enum.includes('click') ? 'click' : node.enum[0];
  const type = Array.isArray(node.type) ? node.type.find((each) => each !== 'null') : node.type;
  if (type === 'object')
    return Object.fromEntries(Object.entries(node.properties ?? {}).map(([name, each]) => [name, instance(each, name, request)]));
  if (type === 'array') return JSON.stringify(node.items).includes('elementId') ? [instance(node.items, '', request)] : [];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  if (key === 'method') return 'click';
  return node.format === 'uri' ? link : 'Example Domain';
}

interface Running {
  child: ChildProcess;
  output: () => string;
  exit: Promise<unknown>;
}

function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Running {
  // A process group of its own, so that what the block started (npm, node, Chromium) ends with it.
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return { child, output: () => output, exit: once(child, 'exit') };
}

async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-running.child.pid!, signal);
    } catch {
      // already gone
    }
  };
  group('SIGTERM');
  const timer = setTimeout(() => group('SIGKILL'), 15_000);
  await running.exit;
  clearTimeout(timer);
}

function within<T>(work: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what()}: no end within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Runs a page's runnable blocks in order; fails with the block's place and output when one fails. */
export async function runJourney(root: string, blocks: Block[]): Promise<void> {
  const [fixtures, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
  fake.script((request) => ({ json: instance(request.schema, '', request) }));
  const dir = path.join(root, 'test', '.docs-run', path.basename(blocks[0]!.page, '.md'));
  mkdirSync(dir, { recursive: true });
  const page = fixtures.a.url('docs-example.html');
  const ports: Record<string, number> = {
    '3000': await freePort(),
    '5005': await freePort(),
    '6379': await freePort(),
    '8931': await freePort(),
    '9333': await freePort(),
    '3001': await freePort(),
    '3002': await freePort(),
    '8080': await freePort(),
  };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MODEL_BASE_URL: fake.url,
    OPENAI_BASE_URL: fake.url,
    TARGET_URL: page,
    PORT: String(ports['5005']),
    MODEL_API_KEY: '',
    OPENAI_API_KEY: '',
    HOSTED_API_URL: '',
    HOSTED_API_KEY: '',
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  // The stand-ins for /path/to/…, made when a block first names one, removed when the page ends.
  const standIns = new Map<string, string>();
  const standIn = (placeholder: string): string => {
    let made = standIns.get(placeholder);
    if (!made) standIns.set(placeholder, (made = placeholder === '/path/to/tendril' ? freshClone(root) : newProject()));
    return made;
  };
  const npx = `npx() { if [ "$1" = tendril ] && [[ "$PWD" == ${JSON.stringify(root)}* ]]; then shift; node ${JSON.stringify(path.join(root, 'bin', 'tendril.js'))} "$@"; else command npx "$@"; fi; }\n`;
  const started: Running[] = [];
  try {
    for (const [index, block] of blocks.entries()) {
      const where = `${block.page}:${block.line}`;
      const code = block.code
        .replaceAll('https://example.org', page)
        .replace(/(?<=\s)example\.org(?=\s)/g, page.replace(/^http:\/\//, ''))
        .replaceAll('http://127.0.0.1:8000/v1', fake.url)
        .replace(/\b(3000|3001|3002|5005|6379|8080|8931|9333)\b/g, (port) => String(ports[port]))
        .replace(/\/path\/to\/(?:tendril|your-project)\b/g, standIn);
      let running: Running;
      if (block.lang === 'ts') {
        // As the README tells a reader to run one: saved as .mts, `npx tsx file.mts`; from the root, so
        // that `tendril` resolves to the source as the repository's tsconfig says.
        const file = path.join(dir, `block${index}.mts`);
        writeFileSync(file, code);
        // TypeScript blocks keep a provider key: their model calls name OpenAI's own service.
        running = start('npx', ['tsx', file], root, { ...env, OPENAI_API_KEY: 'sk-docs-test' });
      } else {
        running = start('bash', ['-e', '-o', 'pipefail', '-c', npx + code], dir, env);
      }
      const ready = /^start "(.+)"$/.exec(block.marker ?? '')?.[1];
      if (ready) {
        started.push(running);
        await within(
          new Promise<void>((resolve, reject) => {
            const check = () => (running.output().includes(ready) ? resolve() : undefined);
            running.child.stdout!.on('data', check);
            running.child.stderr!.on('data', check);
            void running.exit.then(() => reject(new Error(`${where} exited before it printed "${ready}":\n${running.output()}`)));
          }),
          BLOCK_DEADLINE_MS,
          () => `${where} never printed "${ready}":\n${running.output()}`,
        );
        continue;
      }
      const [code_] = (await within(
        running.exit,
        packs(block) ? PACK_DEADLINE_MS : BLOCK_DEADLINE_MS,
        () => `${where}:\n${running.output()}`,
      ).catch(async (error: unknown) => {
        await stop(running);
        throw error;
      })) as [number | null];
      expect(
        code_,
        `${where} failed:\n${running.output()}\n(the servers it uses said:\n${started.map((each) => each.output()).join('\n')})`,
      ).toBe(0);
    }
  } finally {
    await Promise.all(started.map(stop));
    await Promise.all([fixtures.close(), fake.close()]);
    for (const each of standIns.values()) rmSync(each, { recursive: true, force: true });
  }
}
