// `npm run serve:function`: the reference function (examples/serverless) served locally, without the
// platform's CLI (which needs a login): /api/run in Node as the Node.js runtime runs it, and
// /api/run-edge inside Vercel's edge-runtime, each bundled by esbuild as the platform would.
// PORT (default 5005) and HOST (default 127.0.0.1); the function reads its variables from this
// process's environment. Prints its URL once it listens.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EdgeRuntime } from 'edge-runtime';
import { bundleFunction, REPO_ROOT } from './function-bundle.js';

type Handler = (request: Request) => Promise<Response>;

const BUILD_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'tendril-function');

async function nodeHandlers(): Promise<Record<string, Handler>> {
  const { file } = await bundleFunction('node', path.join(BUILD_DIR, `run-${process.pid}.mjs`), { minify: false });
  return (await import(pathToFileURL(file).href)) as Record<string, Handler>;
}

async function edgeHandler(): Promise<Handler> {
  const { file } = await bundleFunction('edge', path.join(BUILD_DIR, `run-edge-${process.pid}.js`), { minify: false });
  const { readFile } = await import('node:fs/promises');
  // The platform gives edge functions their variables as process.env, and nothing else of Node's.
  const env = { ...process.env };
  const runtime = new EdgeRuntime({ extend: (context) => Object.assign(context, { process: { env } }) });
  runtime.evaluate(await readFile(file, 'utf8'));
  return async (request) => {
    const response = await runtime.dispatchFetch(request.url, {
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: request.body ? await request.text() : undefined,
    });
    await response.waitUntil();
    return new Response(await response.text(), { status: response.status, headers: Object.fromEntries(response.headers) });
  };
}

function toRequest(req: http.IncomingMessage, base: string, body: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && body.length > 0;
  return new Request(new URL(req.url ?? '/', base), { method: req.method, headers, body: hasBody ? new Uint8Array(body) : undefined });
}

export async function startFunctionServer(port: number, host: string): Promise<{ url: string; close(): Promise<void> }> {
  const [node, edge] = await Promise.all([nodeHandlers(), edgeHandler()]);
  let base = '';
  // A request whose client goes away mid-body rejects; it ends that response, not the server.
  const server = http.createServer((req, res) => void answer(req, res).catch((error: unknown) => res.destroy(error as Error)));
  async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = toRequest(req, base, Buffer.concat(chunks));
    const pathname = new URL(request.url).pathname;
    let response: Response;
    try {
      if (pathname === '/api/run') {
        const handler = node[request.method];
        response = handler ? await handler(request) : new Response('Method Not Allowed', { status: 405, headers: { allow: 'GET, POST' } });
      } else if (pathname === '/api/run-edge') {
        response = await edge(request);
      } else {
        response = new Response('Not Found', { status: 404 });
      }
    } catch (error) {
      // What the platform does when a function throws instead of answering.
      response = new Response(`FUNCTION_INVOCATION_FAILED: ${(error as Error).message}`, { status: 500 });
    }
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  }
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  base = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const served = await startFunctionServer(Number(process.env.PORT ?? 5005), process.env.HOST ?? '127.0.0.1');
  console.log(`function listening on ${served.url} (/api/run, /api/run-edge)`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void served.close().then(() => process.exit(0)));
}
