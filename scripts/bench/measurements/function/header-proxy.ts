// A loopback HTTP proxy in front of the hosted server, for Stagehand's Browserbase client: that client
// sends its key as X-BB-API-Key, the server reads x-hosted-api-key. The one header is renamed;
// method, path, every other header and the body go through as they are, and so does the response.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  readonly method: string;
  readonly path: string;
  /** The upstream status, or 502 when the upstream could not be reached. */
  readonly status: number;
}

export interface HeaderProxy {
  /** e.g. "http://127.0.0.1:39123": what the client is given as its base URL. */
  readonly url: string;
  /** Every call forwarded so far, in order of arrival. */
  readonly calls: readonly ProxiedCall[];
  close(): Promise<void>;
}

/** Header names as Node gives them: lower case. */
export async function startHeaderProxy(target: string, from: string, to: string): Promise<HeaderProxy> {
  const upstream = new URL(target);
  const [fromName, toName] = [from.toLowerCase(), to.toLowerCase()];
  const calls: ProxiedCall[] = [];
  const server = http.createServer((req, res) => {
    const call = { method: req.method ?? 'GET', path: req.url ?? '/', status: 502 };
    calls.push(call);
    const headers = { ...req.headers };
    if (fromName in headers) {
      headers[toName] = headers[fromName];
      delete headers[fromName];
    }
    const forward = http.request(
      { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (reply) => {
        call.status = reply.statusCode ?? 502;
        res.writeHead(call.status, reply.statusMessage, reply.rawHeaders);
        reply.pipe(res);
      },
    );
    forward.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bench header proxy: ${err.message}`);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
