// A loopback site for the batch tests: small pages under /p/<n>, reachable as two hosts
// (127.0.0.1 and localhost) on one port. It counts documents in flight, per host and in all, and
// holds each a moment so that jobs running at once overlap. /flaky/<k> answers 503 to its first
// two requests, /big is about 400 kB of text, /missing 404, /hang never answers (until the client hangs up), and /hang-once
// does not answer its first request only.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BatchSite {
  port: number;
  url(host: '127.0.0.1' | 'localhost', path: string): string;
  /** Requests per path, as they arrived. */
  hits: Map<string, number>;
  /** The most documents in flight at once, in all and per host. */
  peak: { all: number; perHost: Map<string, number> };
  /** Resolves when a /hang request arrives. */
  hangArrived(): Promise<void>;
  /** Resolves when a /hang request's client hangs up (the abort reached the network). */
  hangClosed(): Promise<void>;
  close(): Promise<void>;
}

export async function startBatchSite(holdMs = 25): Promise<BatchSite> {
  const hits = new Map<string, number>();
  const peak = { all: 0, perHost: new Map<string, number>() };
  const inFlight = new Map<string, number>();
  let all = 0;
  const hangWaiters: Array<() => void> = [];
  const arrivalWaiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/favicon.ico') return void res.writeHead(404).end();
    if (path.startsWith('/hang') && !(path.startsWith('/hang-once') && hits.get(path)! > 1)) {
      arrivalWaiters.splice(0).forEach((wake) => wake());
      req.socket.once('close', () => hangWaiters.splice(0).forEach((wake) => wake()));
      return;
    }
    if (path.startsWith('/big'))
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>Big</title>${Array.from({ length: 4000 }, (_, i) => `<p>Paragraph ${i} ${'of a long page '.repeat(6)}</p>`).join('')}`,
        );
    if (path.startsWith('/missing')) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not here</h1>');
    if (path.startsWith('/flaky') && hits.get(path)! <= 2)
      return void res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Busy</h1>');
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    all++;
    const here = (inFlight.get(host) ?? 0) + 1;
    inFlight.set(host, here);
    peak.all = Math.max(peak.all, all);
    peak.perHost.set(host, Math.max(peak.perHost.get(host) ?? 0, here));
    setTimeout(() => {
      all--;
      inFlight.set(host, inFlight.get(host)! - 1);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>${path}</title><h1>Page ${path}</h1><p>Marker ${path.replace(/\W/g, '-')}</p>`);
    }, holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (host, path) => `http://${host}:${port}${path}`,
    hits,
    peak,
    hangArrived: () => new Promise((resolve) => arrivalWaiters.push(resolve)),
    hangClosed: () => new Promise((resolve) => hangWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
