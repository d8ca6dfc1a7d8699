import { TargetClosedError } from '../errors.js';
import { Emitter } from '../util/emitter.js';
import type { CdpEvents, Commands } from './protocol.js';

/** What a session needs of the connection that carries it (connection.ts's Connection). */
export interface SessionHost {
  readonly closed: boolean;
  send<M extends keyof Commands>(
    sessionId: string,
    method: M,
    params: Commands[M]['paramsType'][0] | undefined,
    timeoutMs?: number,
    onResult?: (result: Commands[M]['returnType']) => void,
  ): Promise<Commands[M]['returnType']>;
  session(sessionId: string): CdpSession | undefined;
  assertOpen(what: string): void;
  rejectSession(sessionId: string, error: Error): void;
}

/** @internal The domains users share through CdpSession.hold(). */
export type HeldDomain = 'DOM';

type EventMap = { [E in keyof CdpEvents]: CdpEvents[E][0] } & { detached: string };

export interface SendOptions {
  /** Overrides the connection's default deadline for this command. */
  timeoutMs?: number;
  /**
   * Runs with the result as soon as the answer arrives, before any event that came after it is
   * dispatched (a `.then` would run only after them).
   */
  onResult?: (result: never) => void;
}

/**
 * One DevTools session: the browser itself (empty id) or a target attached in flat mode.
 * Events are typed by the protocol's own mapping.
 */
export class CdpSession extends Emitter<EventMap> {
  #detachedReason: string | undefined;
  /** Why the target is about to detach, when it said so first (Inspector.detached). */
  #announcedReason: string | undefined;
  /** Who keeps each domain of `hold()` on: how many, and the enable they wait for. */
  readonly #holds = new Map<HeldDomain, { count: number; enabled: Promise<unknown> }>();
  /** Runs before each command goes out, in order with it (driver/downloadKeeper.ts). */
  declare beforeSend?: (method: string, params: unknown) => void;

  constructor(
    private readonly connection: SessionHost,
    readonly id: string,
    readonly targetType: string,
    readonly targetId: string,
    /** The session whose auto-attach produced this one ('' for the browser). */
    readonly parentId?: string,
  ) {
    super();
  }

  get detached(): boolean {
    return this.#detachedReason !== undefined;
  }

  send<M extends keyof Commands>(
    method: M,
    ...args: Commands[M]['paramsType'] extends []
      ? [params?: undefined, options?: SendOptions]
      : Commands[M]['paramsType'] extends [unknown?]
        ? [params?: Commands[M]['paramsType'][0], options?: SendOptions]
        : [params: Commands[M]['paramsType'][0], options?: SendOptions]
  ): Promise<Commands[M]['returnType']> {
    const [params, options] = args;
    // After the detach the connection no longer knows this session; say why it went.
    // (A closed connection says that instead, as every session's error.)
    if (this.#detachedReason !== undefined && !this.connection.closed) {
      return Promise.reject(
        new TargetClosedError(`Cannot send ${method}: the ${this.targetType} target detached (${this.#detachedReason}).`),
      );
    }
    this.beforeSend?.(method, params);
    return this.connection.send(
      this.id,
      method,
      params,
      options?.timeoutMs,
      options?.onResult as ((result: Commands[M]['returnType']) => void) | undefined,
    );
  }

  /** Sends and ignores failure: for best-effort commands whose target may already be gone. */
  sendQuiet<M extends keyof Commands>(method: M, params?: Commands[M]['paramsType'][0]): Promise<void> {
    return this.connection.send(this.id, method, params).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Turns `domain` on for one user until the returned release is called; the last release turns it
   * off. An agent left on costs every later mutation of the page an event sent to Node (the DOM
   * agent sends two per inserted node), so each user that needs one holds it here, not on its own.
   * The enable is sent before this returns to the event loop: a command sent after it is answered after it.
   * @internal Tendril's own users of a domain share it; a client's own enable is its own.
   */
  async hold(domain: HeldDomain, timeoutMs?: number): Promise<() => void> {
    let hold = this.#holds.get(domain);
    if (!hold) this.#holds.set(domain, (hold = { count: 0, enabled: this.send(`${domain}.enable`, undefined, { timeoutMs }) }));
    const held = hold;
    held.count++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--held.count > 0 || this.#holds.get(domain) !== held) return;
      this.#holds.delete(domain);
      void this.sendQuiet(`${domain}.disable`);
    };
    try {
      await held.enabled;
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /** Throws ConnectionClosedError once the browser connection is gone; `what` names the operation. */
  assertConnected(what: string): void {
    this.connection.assertOpen(what);
  }

  /** The session a Target.attachedToTarget event of this session announced. */
  childSession(sessionId: string): CdpSession | undefined {
    return this.connection.session(sessionId);
  }

  /** @internal Called by the connection for each event of this session. */
  dispatch(method: string, params: unknown): void {
    if (this.#detachedReason === undefined) this.emit(method as keyof EventMap, params as never);
  }

  /** @internal Remembers the reason a target gives before it detaches (Inspector.detached). */
  announceDetach(reason: string): void {
    this.#announcedReason = reason;
  }

  /** @internal */
  markDetached(reason: string): void {
    if (this.#detachedReason !== undefined) return;
    this.#detachedReason = this.#announcedReason ?? reason;
    reason = this.#detachedReason;
    this.connection.rejectSession(
      this.id,
      new TargetClosedError(`The ${this.targetType} target detached (${reason}) before the command finished.`),
    );
    this.emit('detached', reason);
    this.removeAllListeners();
  }
}
