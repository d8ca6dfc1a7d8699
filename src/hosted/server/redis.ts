// The result cache in Redis, so that server instances behind one load balancer share results. The
// client is our own: the four commands a cache needs do not justify a dependency. A cache must
// never break an operation, so every failure here becomes a miss (get) or a no-op (set).

import net from 'node:net';
import tls from 'node:tls';
import { InvalidOptionError, SdkError, SdkStateError, TimeoutError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { redactUrl } from '../../util/redact.js';
import type { ResultCache } from './cache.js';

const URL_FORM = 'redis://[user:password@]host[:port][/db], or rediss:// for TLS';
/** While Redis stays unreachable, commands fail at once for this long instead of each trying again. */
const RETRY_DELAY_MS = 1000;
/** At most one error line per this long, however many requests fail meanwhile. */
const REPORT_INTERVAL_MS = 60_000;

/** `where` (host:port) is what messages name, never the URL: it may hold the password. */
interface Target { host: string; port: number; tls: boolean; username?: string; password?: string; db: number; where: string }

const sentence = (text: string) => text.replace(/([^.!?])$/, '$1.');

export function parseRedisUrl(raw: string): Target {
  const bad = (why: string) => new InvalidOptionError(`REDIS_URL ${JSON.stringify(redactUrl(raw))} ${why}: expected ${URL_FORM}.`);
  if (!URL.canParse(raw)) throw bad('is not a valid URL');
  const url = new URL(raw);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw bad('is not a Redis URL');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw bad('names no host');
  if (url.search || url.hash) throw bad('has a query or fragment, which this client does not read');
  const db = url.pathname.replace(/^\//, '');
  if (!/^\d{0,5}$/.test(db)) throw bad('has a path that is not a database number');
  let username: string | undefined, password: string | undefined;
  try {
    [username, password] = [decodeURIComponent(url.username) || undefined, url.password ? decodeURIComponent(url.password) : undefined];
  } catch {
    throw bad('has badly percent-encoded credentials');
  }
  if (username && password === undefined) throw bad('has a user name but no password (a password alone is redis://:password@host)');
  const port = Number(url.port || 6379);
  return { host, port, tls: url.protocol === 'rediss:', username, password, db: Number(db || 0), where: `${url.hostname}:${port}` };
}

/** An error reply (`-ERR ...`). The parser yields it as a value: an array may hold some. */
class ReplyError extends SdkError {}
type Reply = string | number | null | ReplyError | Reply[];

/** RESP2 replies from a byte stream that TCP cuts anywhere. */
export class RespParser {
  #chunks: Buffer[] = [];
  #length = 0;
  /** Bytes the reply at the head of the stream needs at least: a large value is joined once, not per chunk. */
  #need = 1;

  constructor(private readonly onReply: (reply: Reply) => void) {}

  /** Throws when the stream is not RESP: the connection is then unusable. */
  feed(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    if (this.#length < this.#need) return;
    const buffer = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#length);
    let offset = 0;
    while (offset < buffer.length) {
      const parsed = this.#read(buffer, offset);
      if (typeof parsed === 'number') break;
      [offset, this.#need] = [parsed[1], 1];
      this.onReply(parsed[0]);
    }
    const rest = buffer.subarray(offset);
    [this.#chunks, this.#length] = [rest.length ? [rest] : [], rest.length];
  }

  /** The reply at `at` and where it ends, or (a number) that it is incomplete, having set #need. */
  #read(buffer: Buffer, at: number, start = at): [Reply, number] | number {
    const eol = buffer.indexOf('\r\n', at);
    if (eol < 0) return (this.#need = buffer.length + 1 - start);
    const [type, line, next] = [String.fromCharCode(buffer[at]!), buffer.toString('utf8', at + 1, eol), eol + 2];
    if (type === '+') return [line, next];
    if (type === '-') return [new ReplyError(line), next];
    if (!':$*'.includes(type) || !/^-?\d+$/.test(line)) throw new SdkError(`Redis sent ${JSON.stringify(type + line.slice(0, 40))}: not RESP2.`);
    // An integer reply past 2^53 loses precision here; none of the commands we send gets one.
    const count = Number(line);
    if (type === ':') return [count, next];
    if (count < 0) return [null, next];
    if (type === '$') {
      const end = next + count + 2;
      if (buffer.length < end) return (this.#need = end - start);
      if (buffer.toString('latin1', end - 2, end) !== '\r\n') throw new SdkError('Redis sent a bulk string longer than announced.');
      return [buffer.toString('utf8', next, end - 2), end];
    }
    const items: Reply[] = [];
    let end = next;
    for (let i = 0; i < count; i++) {
      const item = this.#read(buffer, end, start);
      if (typeof item === 'number') return item;
      [items[i], end] = item;
    }
    return [items, end];
  }
}

const encode = (args: string[]) => `*${args.length}\r\n` + args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('');

interface Waiter { resolve(reply: Reply): void; reject(error: Error): void }
/** Replies come in the order commands went out: the head of `queue` owns the next one. */
interface Connection { socket: net.Socket; queue: Waiter[]; ready: Promise<void>; established: boolean; dead: boolean; abort(error: Error): void }

/** Pipelined commands over one connection, opened on first use and again after it fails. */
class RedisClient {
  #conn: Connection | undefined;
  #closed = false;
  #retryAt = 0;
  #lastFailure: Error | undefined;

  constructor(readonly target: Target, private readonly timeoutMs: number) {}

  /** Rejects on an error reply, a lost connection, or no answer within the deadline (connecting included). */
  command(args: string[]): Promise<Reply> {
    if (this.#closed) return Promise.reject(new SdkStateError('The Redis client is closed.'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = () => ((settled = true), clearTimeout(timer));
      const waiter: Waiter = {
        resolve: (reply) => (reply instanceof ReplyError ? waiter.reject(reply) : (settle(), resolve(reply))),
        reject: (error) => (settle(), reject(error)),
      };
      let conn: Connection | undefined;
      const timer = setTimeout(() => {
        waiter.reject(new TimeoutError(`Redis at ${this.target.where} did not answer ${args[0]} within ${this.timeoutMs} ms.`, this.timeoutMs));
        // Replies are matched by order, so one that never comes stalls every later one too.
        if (conn) this.#drop(conn, new SdkError(`Redis at ${this.target.where} stopped answering.`));
      }, this.timeoutMs);
      try {
        conn = this.#connection();
      } catch (error) {
        return waiter.reject(error as Error);
      }
      const opened = conn;
      opened.ready.then(() => settled || this.#send(opened, args, waiter), waiter.reject);
    });
  }

  #send(conn: Connection, args: string[], waiter: Waiter): void {
    if (conn.dead) return waiter.reject(new SdkError(`The connection to Redis at ${this.target.where} is closed.`));
    conn.queue.push(waiter);
    conn.socket.write(encode(args));
  }

  #connection(): Connection {
    if (this.#conn) return this.#conn;
    if (Date.now() < this.#retryAt && this.#lastFailure) throw this.#lastFailure;
    const { host, port, where } = this.target;
    const socket = this.target.tls ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
    socket.setNoDelay(true).setKeepAlive(true, 30_000);
    let abort!: (error: Error) => void;
    const opened = new Promise<void>((resolve, reject) => {
      socket.once(this.target.tls ? 'secureConnect' : 'connect', resolve);
      abort = reject;
    });
    const conn: Connection = { socket, queue: [], ready: opened, established: false, dead: false, abort };
    this.#conn = conn;
    const parser = new RespParser((reply) => conn.queue.shift()?.resolve(reply));
    socket.on('data', (chunk: Buffer) => {
      try {
        parser.feed(chunk);
      } catch (error) {
        this.#drop(conn, error as Error);
      }
    });
    socket.on('error', (error) => this.#drop(conn, error));
    socket.on('close', () => this.#drop(conn, new SdkError(`Redis at ${where} closed the connection.`)));
    const handshake = opened.then(() => this.#handshake(conn));
    conn.ready = handshake.then(() => void (conn.established = true), (error: Error) => (this.#drop(conn, error), Promise.reject(error)));
    return conn;
  }

  async #handshake(conn: Connection): Promise<void> {
    const { username, password, db, where } = this.target;
    const steps: string[][] = [];
    if (password !== undefined) steps.push(username ? ['AUTH', username, password] : ['AUTH', password]);
    if (db) steps.push(['SELECT', String(db)]);
    const replies = await Promise.all(steps.map((args) => new Promise<Reply>((resolve, reject) => this.#send(conn, args, { resolve, reject }))));
    const failed = replies.findIndex((reply) => reply instanceof ReplyError);
    if (failed < 0) return;
    const what = steps[failed]![0] === 'AUTH' ? 'refused the credentials in REDIS_URL' : `has no database ${db}`;
    throw new SdkError(`Redis at ${where} ${what}: ${(replies[failed] as ReplyError).message}`);
  }

  #drop(conn: Connection, error: Error): void {
    if (conn.dead) return;
    conn.dead = true;
    if (this.#conn === conn) this.#conn = undefined;
    if (!conn.established) [this.#retryAt, this.#lastFailure] = [Date.now() + RETRY_DELAY_MS, error];
    conn.abort(error);
    conn.socket.destroy();
    for (const waiter of conn.queue.splice(0)) waiter.reject(error);
  }

  /** QUIT lets the replies still due arrive first; a Redis that does not answer it is cut off. */
  async close(): Promise<void> {
    const conn = this.#conn;
    if (this.#closed || !conn) return void (this.#closed = true);
    this.#closed = true;
    const closed = new SdkError(`The connection to Redis at ${this.target.where} was closed.`);
    if (!conn.established) return this.#drop(conn, closed);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#drop(conn, closed), Math.min(this.timeoutMs, 1000));
      conn.socket.once('close', () => (clearTimeout(timer), resolve()));
      this.#send(conn, ['QUIT'], { resolve: () => conn.socket.end(), reject: () => undefined });
    });
  }
}

export interface RedisCacheOptions {
  /** How long an entry lives. Default 24 hours. */
  ttlMs?: number;
  /** Put before every key; instances sharing a Redis must use the same one. Default `tendril:cache:`. */
  keyPrefix?: string;
  /** Deadline of each command, connecting included. Default 2 s. */
  timeoutMs?: number;
}

export class RedisCache implements ResultCache {
  readonly #client: RedisClient;
  readonly #ttl: string;
  readonly #prefix: string;
  #closed = false;
  /** An error line went out, and no recovery line since. */
  #failing = false;
  #reportedAt = -Infinity;
  #unreported = 0;

  /** Connects on first use (`connect` also checks that Redis answers). Throws on a malformed URL. */
  constructor(url: string, private readonly logger: Logger, options: RedisCacheOptions = {}) {
    const { ttlMs = 24 * 3600_000, keyPrefix = 'tendril:cache:', timeoutMs = 2000 } = options;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) throw new InvalidOptionError(`ttlMs must be a positive integer, not ${ttlMs}.`);
    if (!(timeoutMs > 0)) throw new InvalidOptionError(`timeoutMs must be positive, not ${timeoutMs}.`);
    this.#client = new RedisClient(parseRedisUrl(url), timeoutMs);
    [this.#ttl, this.#prefix] = [String(ttlMs), keyPrefix];
  }

  /** So that a server given a wrong REDIS_URL fails at start, rather than quietly caching nothing. */
  static async connect(url: string, logger: Logger, options?: RedisCacheOptions): Promise<RedisCache> {
    const cache = new RedisCache(url, logger, options);
    const { where } = cache.#client.target;
    try {
      await cache.#client.command(['PING']);
    } catch (error) {
      await cache.close();
      const fix = `Start Redis there, correct REDIS_URL (${URL_FORM}), or unset it to cache in memory.`;
      throw new InvalidOptionError(`Cannot use the Redis at ${where} that REDIS_URL names: ${sentence((error as Error).message)} ${fix}`, { cause: error });
    }
    logger.info('cache', `Caching results in Redis at ${where}.`);
    return cache;
  }

  async get(key: string): Promise<unknown | undefined> {
    if (this.#closed) return undefined;
    try {
      const reply = await this.#client.command(['GET', this.#prefix + key]);
      this.#recovered();
      return typeof reply === 'string' ? JSON.parse(reply) : undefined;
    } catch (error) {
      return this.#failed('get', error as Error);
    }
  }

  async set(key: string, value: unknown): Promise<void> {
    if (this.#closed) return;
    try {
      const text = JSON.stringify(value);
      if (text === undefined) return;
      await this.#client.command(['SET', this.#prefix + key, text, 'PX', this.#ttl]);
      this.#recovered();
    } catch (error) {
      this.#failed('set', error as Error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.close();
  }

  #failed(op: string, error: Error): undefined {
    this.#unreported++;
    if (Date.now() - this.#reportedAt < REPORT_INTERVAL_MS) return;
    const failures = this.#unreported;
    [this.#reportedAt, this.#unreported, this.#failing] = [Date.now(), 0, true];
    const message = `Redis cache at ${this.#client.target.where} failed (${op}): ${sentence(error.message)} Going on without it.`;
    this.logger.error('cache', message, { failures });
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.logger.info('cache', `Redis cache at ${this.#client.target.where} answers again.`);
  }
}
