// A loopback site for the batch tests: small pages under /p/<n>, reachable as several hosts on one
// port (127.0.0.1 and localhost, and any other loopback addresses it is asked to listen on, each a
// host of its own). It counts documents in flight, per host and in all, records when each request
// arrived, and holds each a moment so that jobs running at once overlap. /slow/<k> is held
// `slowMs`; /flaky/<k> answers 503 to its first two requests, /big is about 400 kB of text,
// /missing 404, /hang never answers (until the client hangs up), and /hang-once does not answer
// its first request only.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BatchSite {
  port: number;
  url(host: string, path: string): string;
  /** Requests per path, as they arrived. */
  hits: Map<string, number>;
  /** Every request but the favicon's, in the order they arrived: its host, path and time (ms). */
  arrivals: Array<{ host: string; path: string; at: number }>;
  /** The most documents in flight at once, in all and per host. */
  peak: { all: number; perHost: Map<string, number> };
  /** Resolves when a /hang request arrives. */
  hangArrived(): Promise<void>;
  /** Resolves when a /hang request's client hangs up (the abort reached the network). */
  hangClosed(): Promise<void>;
  /** Resolves (with its time) when a request for `path` arrives for the `count`th time. */
  arrival(path: string, count: number): Promise<number>;
  close(): Promise<void>;
}

export interface BatchSiteOptions {
  holdMs?: number;
  slowMs?: number;
  /** Loopback addresses beside 127.0.0.1 to listen on (127.0.0.2, ...): hosts of their own. */
  addresses?: string[];
}

export async function startBatchSite(options: number | BatchSiteOptions = {}): Promise<BatchSite> {
  const { holdMs = 25, slowMs = 2000, addresses = [] } = typeof options === 'number' ? { holdMs: options } : options;
  const hits = new Map<string, number>();
  const arrivals: BatchSite['arrivals'] = [];
  const peak = { all: 0, perHost: new Map<string, number>() };
  const inFlight = new Map<string, number>();
  let all = 0;
  const hangWaiters: Array<() => void> = [];
  const arrivalWaiters: Array<() => void> = [];
  const pathWaiters: Array<{ path: string; count: number; resolve: (at: number) => void }> = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? '/';
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/favicon.ico') return void res.writeHead(404).end();
    const at = Date.now();
    arrivals.push({ host, path, at });
    for (const waiter of pathWaiters.filter((each) => each.path === path && each.count <= hits.get(path)!)) {
      pathWaiters.splice(pathWaiters.indexOf(waiter), 1);
      waiter.resolve(at);
    }
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
    all++;
    const here = (inFlight.get(host) ?? 0) + 1;
    inFlight.set(host, here);
    peak.all = Math.max(peak.all, all);
    peak.perHost.set(host, Math.max(peak.perHost.get(host) ?? 0, here));
    setTimeout(
      () => {
        all--;
        inFlight.set(host, inFlight.get(host)! - 1);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><title>${path}</title><h1>Page ${path}</h1><p>Marker ${path.replace(/\W/g, '-')}</p>`);
      },
      path.startsWith('/slow') ? slowMs : holdMs,
    );
  };
  const first = http.createServer(handler);
  await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
  const { port } = first.address() as AddressInfo;
  const servers = [first];
  for (const address of addresses) {
    const server = http.createServer(handler);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, address, resolve));
    servers.push(server);
  }
  return {
    port,
    url: (host, path) => `http://${host}:${port}${path}`,
    hits,
    arrivals,
    peak,
    hangArrived: () => new Promise((resolve) => arrivalWaiters.push(resolve)),
    hangClosed: () => new Promise((resolve) => hangWaiters.push(resolve)),
    arrival: (path, count) =>
      new Promise((resolve) => {
        const seen = arrivals.filter((each) => each.path === path);
        if (seen.length >= count) resolve(seen[count - 1]!.at);
        else pathWaiters.push({ path, count, resolve });
      }),
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      ).then(() => undefined),
  };
}
