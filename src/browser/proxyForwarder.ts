// A proxy on loopback that Chrome uses when localBrowserLaunchOptions.proxy has a username or
// password: it passes every request on to the real proxy with a Proxy-Authorization header. Chrome
// itself would ask for proxy credentials in a dialog that nobody answers, and taking them over the
// DevTools Protocol (Fetch.authRequired) would need the Fetch domain on every target of the browser.
// HTTPS and WebSocket traffic comes as CONNECT, which becomes a CONNECT to the real proxy; plain
// HTTP comes with absolute URIs, which go on as they are. Node only; closed with the browser.
//
// The credentials never appear in a log line or an error: only the proxy's host does.

import { Buffer } from 'node:buffer';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Logger } from '../logger.js';

/** How long the real proxy may take to accept a connection and answer a CONNECT or a request's headers. */
const UPSTREAM_DEADLINE_MS = 30_000;
/** The most a CONNECT answer's head may hold before it is taken for garbage. */
const MAX_HEAD = 64 * 1024;

export interface ProxyCredentials {
  server: string;
  username?: string;
  password?: string;
}

export interface ProxyForwarder {
  /** What Chrome's --proxy-server takes: the forwarder's loopback address. */
  readonly server: string;
  close(): Promise<void>;
}

/** The real proxy's address; the launch options' check (launchOptions.ts) allowed only http and https ones. */
export function upstreamOf(server: string): URL {
  return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `http://${server}`);
}

export async function startProxyForwarder(
  proxy: ProxyCredentials,
  logger: Logger,
  deadlineMs = UPSTREAM_DEADLINE_MS,
): Promise<ProxyForwarder> {
  const upstream = upstreamOf(proxy.server);
  const secure = upstream.protocol === 'https:';
  const host = upstream.hostname.replace(/^\[|\]$/g, '');
  const port = Number(upstream.port) || (secure ? 443 : 80);
  const where = `${upstream.hostname}:${port}`;
  const authorization = `Basic ${Buffer.from(`${proxy.username ?? ''}:${proxy.password ?? ''}`).toString('base64')}`;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    return socket;
  };
  const refused = () =>
    logger.error('browser', 'The proxy refused the credentials of localBrowserLaunchOptions.proxy (407)', { proxy: where });

  /** A connection to the real proxy, within the deadline. */
  const openUpstream = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = track(secure ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port }));
      const timer = setTimeout(
        () => socket.destroy(new Error(`the proxy ${where} did not accept a connection within ${deadlineMs} ms`)),
        deadlineMs,
      );
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });

  const tunnel = async (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    client.on('error', () => undefined);
    let remote: Socket | undefined;
    try {
      remote = await openUpstream();
      const target = req.url ?? '';
      remote.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: ${authorization}\r\n\r\n`);
      const { status, rest } = await answerOf(remote, deadlineMs, where);
      if (status < 200 || status > 299) {
        if (status === 407) refused();
        client.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nX-Upstream-Status: ${status}\r\n\r\n`);
        remote.destroy();
        return;
      }
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (rest.length) client.write(rest);
      if (head.length) remote.write(head);
      remote.on('error', () => client.destroy());
      client.on('error', () => remote?.destroy());
      remote.pipe(client);
      client.pipe(remote);
    } catch (error) {
      logger.debug('browser', 'A connection through the proxy failed', { proxy: where, error: (error as Error).message });
      remote?.destroy();
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    }
  };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, 'proxy-authorization': authorization };
    delete headers['proxy-connection'];
    const send = secure ? httpsRequest : httpRequest;
    const out = send({ host, port, method: req.method, path: req.url, headers, servername: secure ? host : undefined, agent: false });
    const timer = setTimeout(() => out.destroy(new Error(`the proxy ${where} did not answer within ${deadlineMs} ms`)), deadlineMs);
    out.on('socket', (socket) => track(socket));
    out.on('response', (answer) => {
      clearTimeout(timer);
      if (answer.statusCode === 407) {
        refused();
        answer.resume();
        // A body, so that the page says why (Chrome shows its own error page for an empty one).
        res
          .writeHead(502, { 'content-type': 'text/plain', 'x-upstream-status': '407' })
          .end(`The proxy ${where} refused the credentials of localBrowserLaunchOptions.proxy (407).`);
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as Record<string, string>);
      answer.pipe(res);
    });
    out.on('error', (error) => {
      clearTimeout(timer);
      logger.debug('browser', 'A request through the proxy failed', { proxy: where, error: error.message });
      if (!res.headersSent) res.writeHead(502, { 'content-length': '0' }).end();
      else res.destroy();
    });
    req.pipe(out);
  };

  const server = createServer(forward);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(req, client, head));
  server.on('connection', (socket: Socket) => track(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port: local } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    server: `http://127.0.0.1:${local}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** The status of the real proxy's answer to CONNECT, and whatever came after its head. */
function answerOf(socket: Socket, deadlineMs: number, where: string): Promise<{ status: number; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const done = (error?: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      if (error) reject(error);
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) {
        if (received.length > MAX_HEAD) done(new Error(`the proxy ${where} sent no valid answer to CONNECT`));
        return;
      }
      done();
      socket.pause();
      const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(received.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      resolve({ status, rest: received.subarray(end + 4) });
    };
    const onClose = () => done(new Error(`the proxy ${where} closed the connection before it answered CONNECT`));
    const timer = setTimeout(() => done(new Error(`the proxy ${where} did not answer CONNECT within ${deadlineMs} ms`)), deadlineMs);
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}
