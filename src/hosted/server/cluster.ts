// Several instances sharing one Redis act as one server behind any balancer (round-robin included):
// a request for a session this instance does not hold goes to the instance that does (registry.ts
// finds it, forward.ts carries it), a session whose instance died is said to be lost at once, and a
// new session that finds this instance full goes to one with room.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { HostedServiceError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { HostedServerConfig } from './config.js';
import { FORWARDED_TO, forwardRequest, forwardUpgrade, sessionLost } from './forward.js';
import { NetworkRules } from './networks.js';
import { InstanceRegistry, type InstanceInfo } from './registry.js';
import { header } from './request.js';
import { apiError, type SessionManager, type SessionRecord } from './sessions.js';

const OWNER_DIED = 'the server instance that ran it stopped';

/** Where the other instances reach this one: HOSTED_INTERNAL_URL, else the address it listens on. */
export function internalUrlOf(config: HostedServerConfig, port: number): string {
  if (config.internalUrl) return config.internalUrl;
  let host = config.host;
  // Listening on every address: the first external IPv4 one is what the others can reach.
  if (host === '0.0.0.0' || host === '::' || host === '') {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((each) => each && each.family === 'IPv4' && !each.internal);
    host = external?.address ?? '127.0.0.1';
  }
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class ClusterRouter {
  private constructor(
    /** This process's id among the instances: a new one at every start. */
    readonly id: string,
    private readonly registry: InstanceRegistry,
    private readonly sessions: SessionManager,
    private readonly logger: Logger,
  ) {}

  /** The router for an instance with a Redis; without one, an instance stands alone (undefined). */
  static async start(
    config: HostedServerConfig,
    sessions: SessionManager,
    port: number,
    logger: Logger,
  ): Promise<ClusterRouter | undefined> {
    if (!config.redis) return undefined;
    const url = internalUrlOf(config, port);
    const id = randomUUID();
    const self = (): InstanceInfo => ({ id, url, sessions: sessions.activeCount, maxSessions: config.maxSessions });
    const owned = () => sessions.allRunning().map((record) => ({ id: record.id, lifetimeMs: Math.max(0, record.expiresAt - Date.now()) }));
    const registry = await InstanceRegistry.start(config.redis, self, owned, logger);
    logger.info('hosted', 'Joined the instances sharing this Redis', { instance: id, internalUrl: url });
    // Forwarding needs no more than the balancer does (the client's key or token), yet an operator
    // should know when HOSTED_ALLOW_NETWORKS lets sessions reach the instances' private addresses.
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    if (
      isIP(host) &&
      new NetworkRules([]).refusal(host) !== undefined &&
      new NetworkRules(config.allowNetworks).refusal(host) === undefined
    ) {
      logger.info(
        'hosted',
        `HOSTED_ALLOW_NETWORKS lets sessions reach ${host}, this instance's internal address; keep the instances on a network the sessions may not reach`,
      );
    }
    return new ClusterRouter(id, registry, sessions, logger);
  }

  /** Records this instance as the session's owner, for the others to find. */
  claim(record: SessionRecord): Promise<void> {
    return this.registry.claim(record.id, Math.max(0, record.expiresAt - Date.now()));
  }

  /**
   * Handles a request for a session this instance does not hold (forwarded to its owner, or answered
   * as lost) and returns true; false when it is this instance's to answer.
   */
  async route(sessionId: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const target = await this.#ownerOf(sessionId, req);
    if (!target) return false;
    this.logger.debug('hosted', 'Forwarding a request to the instance of its session', { session: sessionId, to: target.id });
    try {
      await forwardRequest(req, res, target);
    } catch (error) {
      throw await this.#unreachable(sessionId, target, error as NodeJS.ErrnoException);
    }
    return true;
  }

  /** The same for a connectUrl upgrade (its token already checked): forwarded, or refused as lost. */
  async routeUpgrade(sessionId: string, req: IncomingMessage, socket: Socket, head: Buffer): Promise<boolean> {
    let target: InstanceInfo | undefined;
    try {
      target = await this.#ownerOf(sessionId, req);
    } catch (error) {
      const status = (error as { status?: number }).status === 410 ? '410 Gone' : '503 Service Unavailable';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
      return true;
    }
    if (!target) return false;
    this.logger.info('hosted', 'Forwarding a connectUrl to the instance of its session', { session: sessionId, to: target.id });
    forwardUpgrade(req, socket, head, target);
    return true;
  }

  /**
   * A new session on a full instance goes to the instance with the most room, when one has any;
   * false leaves it to this one (which refuses it with 429 when still full).
   */
  async routeCreate(req: IncomingMessage, res: ServerResponse, maxSessions: number): Promise<boolean> {
    if (header(req, FORWARDED_TO) || this.sessions.activeCount < maxSessions) return false;
    const target = await this.registry.withRoom().catch(() => undefined);
    if (!target) return false;
    this.logger.info('hosted', 'This instance is full: passing a new session to one with room', { to: target.id });
    await forwardRequest(req, res, target).catch((error: Error) => {
      this.logger.error('hosted', `Could not reach instance ${target.id} at ${target.url}: ${error.message}`);
      throw apiError('rate_limited', 'Every instance is full or unreachable; try again shortly.', 1);
    });
    return true;
  }

  /**
   * Why the owner could not be reached: nothing listens at its address any more (refused), or its
   * heartbeat is gone, and the session is lost; else it may be a network fault or a wrong
   * HOSTED_INTERNAL_URL, said in the log, and the client may try again.
   */
  async #unreachable(sessionId: string, target: InstanceInfo, error: NodeJS.ErrnoException): Promise<Error> {
    const owner = error.code === 'ECONNREFUSED' ? undefined : await this.registry.owner(sessionId).catch(() => undefined);
    if (!owner?.alive) {
      this.logger.info('hosted', 'The instance of a session is gone; the session is lost', { session: sessionId, instance: target.id });
      return sessionLost(sessionId, OWNER_DIED);
    }
    this.logger.error(
      'hosted',
      `Could not reach instance ${target.id} at ${target.url} (check its HOSTED_INTERNAL_URL): ${error.message}`,
      { session: sessionId },
    );
    return new HostedServiceError(
      `The server could not reach the instance that runs session ${sessionId}; try again shortly.`,
      503,
      'internal',
      1,
    );
  }

  close(): Promise<void> {
    return this.registry.close();
  }

  /** The live instance to forward to, undefined when this one answers; throws for a lost session. */
  async #ownerOf(sessionId: string, req: IncomingMessage): Promise<InstanceInfo | undefined> {
    const forwardedTo = header(req, FORWARDED_TO);
    // Forwarded once already: never again. Meant for another process at this address: that one died.
    if (forwardedTo) {
      if (forwardedTo !== this.id) throw sessionLost(sessionId, OWNER_DIED);
      return undefined;
    }
    if (this.sessions.has(sessionId)) return undefined;
    let owner;
    try {
      owner = await this.registry.owner(sessionId);
    } catch (error) {
      throw new HostedServiceError(
        `The server cannot find which instance holds session ${sessionId}: ${(error as Error).message} Try again shortly.`,
        503,
        'internal',
        1,
      );
    }
    if (!owner || (owner.alive && owner.instance.id === this.id)) return undefined;
    if (!owner.alive) throw sessionLost(sessionId, OWNER_DIED);
    return owner.instance;
  }
}
