// Every request of a hosted session's browser leaves through this proxy (one per session, on
// loopback): Chromium gets --proxy-server with loopback included, so frames, workers, WebSockets,
// redirects and popups all pass here and nothing else reaches the network. For each request the
// proxy resolves the name itself, checks every address against the network rules, and connects to
// an address it checked: a DNS answer cannot point the browser anywhere the rules refuse. The
// session's domainPolicy and, with blockAds, the ad block list are checked here too.

import { promises as dns } from 'node:dns';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { UPSTREAM_ERROR_HEADER } from '../../driver/upstream.js';
import type { Logger } from '../../logger.js';
import { withDeadline } from '../../util/time.js';
import { describePolicy, hostAllowed, type CheckedPolicy } from '../../util/domainPolicy.js';
import { chromeOwnHost } from './chromeHosts.js';
import type { NetworkRules } from './networks.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
const DNS_TIMEOUT_MS = 10_000;
// Headers meant for the proxy or for one hop only (RFC 9110 7.6.1), never passed on; and the
// proxy's own, which an upstream server may not forge (the driver believes them).
const HOP_BY_HOP = new Set([
  'proxy-connection',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  UPSTREAM_ERROR_HEADER,
  'x-tendril-refused',
]);

export interface EgressOptions {
  rules: NetworkRules;
  policy?: CheckedPolicy;
  /** Hosts of the ad block list (blockAds sessions). */
  blocks?: (host: string) => boolean;
  /** DNS servers to ask instead of the system resolver (HOSTED_DNS_SERVERS). */
  dnsServers?: string[];
  /** Longest wait for a TCP connection to an upstream server (HOSTED_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /**
   * Longest wait for an http:// server's answer once connected (HOSTED_RESPONSE_TIMEOUT_MS); 0, the
   * default: as long as the browser waits (a goto's deadline cancels its request, which ends ours).
   */
  responseTimeoutMs?: number;
  /** For the logs. */
  session: string;
}

/** `drop`: fail like a network error, as ad blockers do, rather than answer with a refusal page. */
type Verdict = { address: string; port: number } | { refused: string; drop?: boolean };

export class EgressProxy {
  readonly #sockets = new Set<Socket>();
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  readonly #logged = new Set<string>();
  readonly #resolver: dns.Resolver | undefined;
  #refusedCount = 0;

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly options: EgressOptions,
    private readonly logger: Logger,
  ) {
    if (options.dnsServers?.length) {
      this.#resolver = new dns.Resolver({ timeout: DNS_TIMEOUT_MS / 2, tries: 2 });
      this.#resolver.setServers(options.dnsServers);
    }
  }

  static async start(options: EgressOptions, logger: Logger): Promise<EgressProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    const proxy = new EgressProxy(server, (server.address() as AddressInfo).port, options, logger);
    server.on('connection', (socket: Socket) => proxy.#track(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void proxy.#forward(req, res));
    server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => void proxy.#tunnel(req, socket, head));
    // A plain-HTTP upgrade is not how Chromium asks for a WebSocket through a proxy (it tunnels).
    server.on('upgrade', (_req: IncomingMessage, socket: Socket) =>
      socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\r\n'),
    );
    return proxy;
  }

  /** The Chromium switches that send all of a browser's traffic here. */
  chromeArgs(): string[] {
    return [
      `--proxy-server=http://127.0.0.1:${this.port}`,
      // Chromium sends loopback hosts around a proxy unless told otherwise.
      '--proxy-bypass-list=<-loopback>',
      // WebRTC would otherwise open UDP sockets of its own, past the proxy.
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--disable-quic',
    ];
  }

  /** Requests refused so far. */
  get refusedCount(): number {
    return this.#refusedCount;
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#agent.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  async #verdict(host: string, port: number): Promise<Verdict> {
    const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    const { policy, blocks, rules } = this.options;
    if (policy && !hostAllowed(policy, name))
      return { refused: `${name} is outside the session's domainPolicy (${describePolicy(policy)})` };
    if (blocks?.(name)) return { refused: `${name} is on the ad block list`, drop: true };
    if (!Number.isInteger(port) || port < 1 || port > 65535) return { refused: `port ${port} is not valid` };
    if (net.isIP(name)) {
      const why = rules.refusal(name);
      return why ? { refused: why } : { address: name, port };
    }
    let addresses: string[];
    try {
      addresses = await this.#resolve(name);
    } catch (error) {
      return { refused: `${name} did not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    }
    if (rules.allowsName(name)) return addresses.length ? { address: addresses[0]!, port } : { refused: `${name} has no address` };
    const allowed = addresses.find((address) => rules.refusal(address) === undefined);
    if (allowed) return { address: allowed, port };
    return {
      refused: `${name} resolves to ${addresses.join(', ')}, which ${addresses.length > 1 ? 'are' : 'is'} on a private, loopback or link-local network`,
    };
  }

  async #resolve(name: string): Promise<string[]> {
    // Loopback by definition (RFC 6761), as Chromium itself treats them, whatever a resolver says.
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    return withDeadline(this.#lookup(name), DNS_TIMEOUT_MS, `Resolving ${name}`);
  }

  async #lookup(name: string): Promise<string[]> {
    if (!this.#resolver) return (await dns.lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);
    const settled = await Promise.allSettled([this.#resolver.resolve4(name), this.#resolver.resolve6(name)]);
    const found = settled.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
    if (!found.length) throw settled.find((result) => result.status === 'rejected')?.reason ?? new Error('no address');
    return found;
  }

  #refused(host: string, why: string): void {
    this.#refusedCount++;
    // Once per host and reason: a page may retry a refused host many times.
    const key = `${host}\n${why}`;
    if (this.#logged.has(key) || this.#logged.size > 500) return;
    this.#logged.add(key);
    // Chromium's own background requests are refused like any other, but no page made them: at
    // info level they read as the user's page failing.
    if (chromeOwnHost(host)) {
      this.logger.debug('hosted', `Refused a background request of Chromium's own (no page made it): ${why}`, {
        session: this.options.session,
        host,
      });
    } else this.logger.info('hosted', `Refused a request of the session: ${why}`, { session: this.options.session, host });
  }

  async #tunnel(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const target = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!target) return void socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    const host = target[1]!;
    const verdict = await this.#verdict(host, Number(target[2]));
    if ('refused' in verdict) {
      this.#refused(host, verdict.refused);
      return void socket.end(`HTTP/1.1 403 Forbidden\r\nConnection: close\r\nX-Tendril-Refused: ${headerSafe(verdict.refused)}\r\n\r\n`);
    }
    const upstream = net.connect({ host: verdict.address, port: verdict.port });
    this.#track(upstream);
    const connectMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    upstream.setTimeout(connectMs, () => upstream.destroy(new UpstreamFailure('connect-timeout', connectMs)));
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once('error', (error) => {
      // Chrome shows no proxy's answer to a CONNECT (it would pose as the site): the page fails
      // with net::ERR_TUNNEL_CONNECTION_FAILED, and the log says why.
      if (upstream.connecting || !upstream.bytesRead) {
        this.#failed(host, describeFailure(host, failureOf(error)));
        socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
      } else socket.destroy();
    });
    socket.once('close', () => upstream.destroy());
    upstream.once('close', () => socket.destroy());
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('not http');
    } catch {
      // Only absolute http:// URLs come to a proxy; anything else is someone talking to it directly.
      return void res.writeHead(400, { connection: 'close' }).end();
    }
    const verdict = await this.#verdict(url.hostname, Number(url.port || 80));
    if ('refused' in verdict) {
      this.#refused(url.hostname, verdict.refused);
      if (verdict.drop) return void req.socket.destroy();
      const body = `Refused by the hosted server: ${verdict.refused}.\n`;
      return void res
        .writeHead(403, {
          'content-type': 'text/plain',
          'content-length': Buffer.byteLength(body),
          'x-tendril-refused': headerSafe(verdict.refused),
        })
        .end(body);
    }
    const headers = endToEnd(req.headers);
    const upstream = http.request({
      host: verdict.address,
      port: verdict.port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      agent: this.#agent,
    });
    this.#deadlines(upstream);
    upstream.once('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      answer.pipe(res);
      answer.once('error', () => res.destroy());
    });
    // The browser dropped the request (a goto's deadline, a page closed): nothing went wrong upstream.
    let dropped = false;
    upstream.once('error', (error) => {
      if (dropped) return;
      if (res.headersSent) return void res.destroy();
      // Said as what it is, for the driver (UPSTREAM_ERROR_HEADER) and for whoever reads the page,
      // never as an empty error status (which Chrome reports as net::ERR_HTTP_RESPONSE_CODE_FAILURE).
      const failure = failureOf(error);
      const why = describeFailure(url.host, failure);
      this.#failed(url.host, why);
      const body = `The hosted server's egress proxy: ${why}.\n`;
      res
        .writeHead(failure.kind.endsWith('timeout') ? 504 : 502, {
          connection: 'close',
          'content-type': 'text/plain; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'cache-control': 'no-store',
          [UPSTREAM_ERROR_HEADER]: failure.ms === undefined ? `${failure.kind} ${failure.code}` : `${failure.kind} ${failure.ms}`,
        })
        .end(body);
    });
    res.once('close', () => {
      if (res.writableFinished) return;
      dropped = true;
      upstream.destroy();
    });
    req.pipe(upstream);
  }

  /**
   * The connect limit covers the TCP connection only (counted once the agent hands the request a
   * socket, so a request queued behind others is not failed for their sake); the answer is awaited
   * as long as the browser waits, unless responseTimeoutMs says otherwise.
   */
  #deadlines(upstream: http.ClientRequest): void {
    const connectMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const answerMs = this.options.responseTimeoutMs ?? 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (failure: UpstreamFailure) => {
      clearTimeout(timer);
      timer = failure.ms ? setTimeout(() => upstream.destroy(failure), failure.ms) : undefined;
    };
    upstream.once('socket', (socket: Socket) => {
      const connected = () => arm(new UpstreamFailure('response-timeout', answerMs));
      if (!socket.connecting) return connected();
      arm(new UpstreamFailure('connect-timeout', connectMs));
      socket.once('connect', connected);
    });
    upstream.once('response', () => clearTimeout(timer));
    upstream.once('close', () => clearTimeout(timer));
  }

  #failed(host: string, why: string): void {
    const key = `failed\n${host}\n${why}`;
    if (this.#logged.has(key) || this.#logged.size > 500) return;
    this.#logged.add(key);
    this.logger.info('hosted', `A request of the session failed upstream: ${why}`, { session: this.options.session, host });
  }
}

/** Why the proxy gave up on an upstream server. */
class UpstreamFailure extends Error {
  constructor(
    readonly kind: 'connect-timeout' | 'response-timeout' | 'refused' | 'failed',
    readonly ms?: number,
    readonly code?: string,
  ) {
    super(kind);
  }
}

function failureOf(error: Error): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'ECONNRESET';
  if (code === 'ECONNREFUSED') return new UpstreamFailure('refused', undefined, code);
  if (code === 'ETIMEDOUT') return new UpstreamFailure('failed', undefined, 'ETIMEDOUT');
  return new UpstreamFailure('failed', undefined, /^[A-Z_]+$/.test(code) ? code : 'ECONNRESET');
}

function describeFailure(host: string, failure: UpstreamFailure): string {
  switch (failure.kind) {
    case 'connect-timeout':
      return `${host} did not accept a connection within ${failure.ms} ms (HOSTED_CONNECT_TIMEOUT_MS)`;
    case 'response-timeout':
      return `${host} did not answer within ${failure.ms} ms (HOSTED_RESPONSE_TIMEOUT_MS)`;
    case 'refused':
      return `${host} refused the connection`;
    default:
      return `the connection to ${host} failed (${failure.code}) before it answered`;
  }
}

/** The headers meant for the other end, without those of this hop. */
function endToEnd(headers: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
}
