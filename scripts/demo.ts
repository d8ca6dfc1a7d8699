// The main job on an embedded default: serve the bundled demo page (a same-origin iframe, a
// cross-origin one that runs out of process, open and closed shadow roots) and read it with the
// command line, in a local Chromium: `tendril text <url>`, the same scoped to the closed shadow
// root's reviews with `--selector`, and, with MODEL_NAME set (key from MODEL_API_KEY or the
// provider's variable; MODEL_BASE_URL for another endpoint), `tendril extract` with a JSON Schema.
// Usage: npm run demo [-- <url>]  (a URL of your own is read with `tendril text` alone)
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEMO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'demo');

/** Serves the demo page on two loopback origins, so its partner iframe is cross-origin. */
export async function serveDemo(): Promise<{ url: string; close: () => void }> {
  const servers: http.Server[] = [];
  const origins: string[] = [];
  for (const host of ['127.0.0.1', 'localhost']) {
    const self = origins.length;
    const server = http.createServer((req, res) => {
      const name = path.basename(new URL(req.url ?? '/', 'http://x').pathname) || 'index.html';
      readFile(path.join(DEMO_DIR, name), 'utf8').then(
        (html) =>
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end(html.replaceAll('{{SELF}}', origins[self]!).replaceAll('{{OTHER}}', origins[1 - self]!)),
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    origins.push(`http://${host}:${(server.address() as AddressInfo).port}`);
  }
  return { url: `${origins[0]}/index.html`, close: () => servers.forEach((server) => server.close()) };
}

const CLI = [process.execPath, '--import', 'tsx', path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.ts')];

/** Runs `tendril <args>` with the terminal as its stdout and stderr; rejects on a non-zero exit. */
function tendril(args: string[]): Promise<void> {
  console.log(`\n$ tendril ${args.map((arg) => (/[\s#"]/.test(arg) ? `'${arg}'` : arg)).join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(CLI[0]!, [...CLI.slice(1), ...args], { stdio: 'inherit' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tendril ${args[0]} exited ${code}`))));
  });
}

const PRODUCTS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    properties: { name: { type: 'string' }, price: { type: 'string' }, url: { type: 'string', format: 'uri' } },
    required: ['name'],
  },
};

async function main(): Promise<void> {
  const demo = process.argv[2] ? undefined : await serveDemo();
  const url = process.argv[2] ?? demo!.url;
  const dir = await mkdtemp(path.join(tmpdir(), 'tendril-demo-'));
  try {
    await tendril(['text', url]);
    if (!demo) return;
    // The reviews live in a closed shadow root: a selector scopes the text to them.
    await tendril(['text', url, '--selector', '#reviews', '--quiet']);
    if (process.env.MODEL_NAME) {
      const schema = path.join(dir, 'products.json');
      await writeFile(schema, JSON.stringify(PRODUCTS_SCHEMA));
      await tendril(['extract', url, 'Every product on the page, with its price and its link', '--schema', schema]);
    }
  } finally {
    demo?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// Only when run as a script: the bench imports serveDemo from here.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
    process.exitCode = 1;
  });
}
