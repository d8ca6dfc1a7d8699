import type { Protocol } from 'devtools-protocol';
import { ConnectionClosedError, ProtocolError, TargetClosedError, TimeoutError } from '../errors.js';
import { Emitter } from '../util/emitter.js';
import { BUSY_HINT } from '../util/time.js';
import type { Transport } from './transport.js';
import type { CdpEvents, Commands } from './protocol.js';
import { CdpSession } from './session.js';

export type { CdpEvents, Commands };

interface Pending {
  method: string;
  sessionId: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onResult?: (result: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
  /** For a script command: what it takes to send it again, and whether a stop may have hit it. */
  retry?: { params: unknown; timeoutMs: number; sentAt: number; stops: number; duringStop: boolean };
}

export type RawMessage = Message;

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: string };
  sessionId?: string;
}

/** Commands that run page script: when one times out, its script may still hold the renderer. */
const RUNS_SCRIPT = new Set<string>(['Runtime.evaluate', 'Runtime.callFunctionOn']);
/** How long a renderer that is not running script takes at most to answer a trivial command. */
const BUSY_PROBE_MS = 300;
const TERMINATE_TIMEOUT_MS = 5000;
const TERMINATED = /Execution was terminated/;

export interface ConnectionOptions {
  /** Deadline of every command unless the call gives its own. */
  commandTimeoutMs: number;
  /** Receives a line per protocol message at the most verbose log level. */
  trace?: (line: string) => void;
}

/**
 * One connection to the browser carries the browser session and every flattened target session:
 * each message names its session with `sessionId`. Every command has a deadline, and when the
 * transport ends every pending command rejects at once.
 */
export class Connection extends Emitter<{ disconnected: string }> {
  readonly rootSession: CdpSession;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #sessions = new Map<string, CdpSession>();
  #closedReason: string | undefined;
  /** While a runaway script is being stopped: script commands wait for it (see #stopRunawayScript). */
  #stopping: Promise<void> | undefined;
  /** Stops begun so far. */
  #stops = 0;
  /**
   * @internal Sees each answer and event first, and keeps those of other clients sharing this
   * connection (cdp/taps.ts, the connectURL() bridge's): true when it took the message.
   */
  intercept?: (message: RawMessage) => boolean;

  constructor(
    private readonly transport: Transport,
    readonly options: ConnectionOptions,
  ) {
    super();
    this.rootSession = new CdpSession(this, '', 'browser', '');
    this.#sessions.set('', this.rootSession);
    transport.onmessage = (text) => this.#onMessage(text);
    transport.onclose = (reason) => this.#onClose(reason);
  }

  get closed(): boolean {
    return this.#closedReason !== undefined;
  }

  /** Throws ConnectionClosedError once the connection is gone; `what` names the operation. */
  assertOpen(what: string): void {
    if (this.#closedReason !== undefined) throw closedError(what, this.#closedReason);
  }

  session(sessionId: string): CdpSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** Sends a command on a session; used through CdpSession.send. */
  send<M extends keyof Commands>(
    sessionId: string,
    method: M,
    params: Commands[M]['paramsType'][0] | undefined,
    timeoutMs = this.options.commandTimeoutMs,
    onResult?: (result: Commands[M]['returnType']) => void,
  ): Promise<Commands[M]['returnType']> {
    // A script sent while a stop is under way could be the one the stop ends: it waits.
    if (this.#stopping && RUNS_SCRIPT.has(method)) {
      return this.#stopping.then(() => this.#send(sessionId, method, params, timeoutMs, onResult, true));
    }
    return this.#send(sessionId, method, params, timeoutMs, onResult, true);
  }

  #send<M extends keyof Commands>(
    sessionId: string,
    method: M,
    params: Commands[M]['paramsType'][0] | undefined,
    timeoutMs: number,
    onResult: ((result: Commands[M]['returnType']) => void) | undefined,
    retriable: boolean,
  ): Promise<Commands[M]['returnType']> {
    if (this.#closedReason !== undefined) {
      return Promise.reject(closedError(method, this.#closedReason));
    }
    const session = this.#sessions.get(sessionId);
    if (!session || session.detached) {
      return Promise.reject(
        new TargetClosedError(`Cannot send ${method}: its target has detached (the page or frame was closed or replaced).`),
      );
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        method,
        sessionId,
        resolve: resolve as (value: unknown) => void,
        reject,
        onResult: onResult as Pending['onResult'],
      };
      if (retriable && RUNS_SCRIPT.has(method)) {
        pending.retry = { params, timeoutMs, sentAt: Date.now(), stops: this.#stops, duringStop: this.#stopping !== undefined };
      }
      if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
        pending.timer = setTimeout(() => {
          this.#pending.delete(id);
          if (RUNS_SCRIPT.has(method)) this.#stopRunawayScript(sessionId);
          reject(new TimeoutError(`DevTools command ${method} timed out after ${timeoutMs} ms. ${BUSY_HINT}`, timeoutMs));
        }, timeoutMs);
      }
      this.#pending.set(id, pending);
      const message: Message = { id, method, params: params ?? {} };
      if (sessionId) message.sessionId = sessionId;
      const text = JSON.stringify(message);
      this.options.trace?.(`→ ${sessionId ? sessionId.slice(0, 8) + ' ' : ''}${method}`);
      this.transport.send(text);
    });
  }

  /**
   * A script command that a stop of some other, timed-out script may have ended instead (it was
   * sent before the stop began, or while it ran) is sent once more after the stop: the stop was
   * ours, not the caller's. Resolves true when it took the pending command over.
   */
  #retryTerminated(pending: Pending, error: { message: string }): boolean {
    const retry = pending.retry;
    if (!retry || !TERMINATED.test(error.message)) return false;
    if (!retry.duringStop && retry.stops === this.#stops && !this.#stopping) return false;
    const left =
      Number.isFinite(retry.timeoutMs) && retry.timeoutMs > 0
        ? Math.max(1, retry.timeoutMs - (Date.now() - retry.sentAt))
        : retry.timeoutMs;
    this.options.trace?.(`  ${pending.sessionId.slice(0, 8)} ${pending.method} was ended by the stop of another script: sending it again`);
    void (this.#stopping ?? Promise.resolve())
      .then(() => this.#send(pending.sessionId, pending.method as keyof Commands, retry.params as never, left, pending.onResult, false))
      .then(pending.resolve, pending.reject);
    return true;
  }

  close(): void {
    this.transport.close();
  }

  /**
   * @internal Sends another client's message (cdp/taps.ts) under this connection's next id, which
   * `sending` learns first. False when the connection is closed.
   */
  sendWithNextId(message: Omit<Message, 'id'>, sending: (id: number) => void): boolean {
    if (this.#closedReason !== undefined) return false;
    const id = this.#nextId++;
    sending(id);
    this.transport.send(JSON.stringify({ id, ...message }));
    return true;
  }

  /** Rejects and forgets the commands still waiting on a session that went away. */
  rejectSession(sessionId: string, error: Error): void {
    for (const [id, pending] of this.#pending) {
      if (pending.sessionId !== sessionId) continue;
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }

  #onMessage(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      this.options.trace?.('← unparsable message dropped');
      return;
    }
    if (message.id !== undefined) {
      if (this.intercept?.(message)) return;
      const pending = this.#pending.get(message.id);
      if (!pending) return; // Timed out earlier; the late answer has nobody to go to.
      this.#pending.delete(message.id);
      clearTimeout(pending.timer);
      if (message.error) {
        if (this.#retryTerminated(pending, message.error)) return;
        pending.reject(
          new ProtocolError(
            `DevTools command ${pending.method} failed: ${message.error.message}${message.error.data ? ` (${message.error.data})` : ''}`,
            pending.method,
            message.error.code,
          ),
        );
      } else {
        // Before any later message is dispatched: a promise's callbacks would run only after the
        // rest of this chunk of messages, and some answers must be in place before their events.
        try {
          pending.onResult?.(message.result);
        } catch (error) {
          pending.reject(error as Error);
          return;
        }
        pending.resolve(message.result);
      }
      return;
    }
    if (!message.method) return;
    const sessionId = message.sessionId ?? '';
    if (this.intercept?.(message)) return;
    this.options.trace?.(`← ${sessionId ? sessionId.slice(0, 8) + ' ' : ''}${message.method}`);
    // Create the child session before anyone hears of it, so its first events already find it.
    if (message.method === 'Target.attachedToTarget') {
      const params = message.params as Protocol.Target.AttachedToTargetEvent;
      const child = new CdpSession(this, params.sessionId, params.targetInfo.type, params.targetInfo.targetId, sessionId);
      this.#sessions.set(params.sessionId, child);
    }
    const session = this.#sessions.get(sessionId);
    if (message.method === 'Inspector.detached') session?.announceDetach(detachedReason((message.params as { reason?: string }).reason));
    session?.dispatch(message.method, message.params);
    if (message.method === 'Target.detachedFromTarget') {
      const params = message.params as Protocol.Target.DetachedFromTargetEvent;
      const child = this.#sessions.get(params.sessionId);
      if (child) {
        this.#sessions.delete(params.sessionId);
        child.markDetached('the target detached');
      }
    }
  }

  /**
   * Giving up on an evaluation does not stop its script: one that never yields would hold the
   * renderer (and every later command on its pages) until they close. It is done here, where every
   * command's deadline is, so evaluations sent from anywhere (evaluate, locators, snapshots, input)
   * are covered, on the very session that ran them. Runtime.getIsolateId runs on the renderer's main
   * thread but runs no script: when it does not answer quickly either, a script holds the thread,
   * and Runtime.terminateExecution (which Chrome handles as an interrupt, even mid-loop) stops it.
   * An evaluation that was only awaiting a promise leaves the thread free, and nothing is stopped.
   *
   * A termination ends whatever script runs next in that renderer when it arrives, and one that
   * arrives after the slow script finished by itself waits for the next script to end: so a script
   * of ours follows it, to be the one it ends, and every other script command waits until both
   * are answered (those already sent are sent again if it ended them: #retryTerminated). A caller
   * that retries at once after a timeout is then not hit by the stop of its first attempt.
   */
  #stopRunawayScript(sessionId: string): void {
    this.#stops++;
    const stop = this.#send(sessionId, 'Runtime.getIsolateId', undefined, BUSY_PROBE_MS, undefined, false).then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof TimeoutError)) return undefined;
        this.options.trace?.(`  ${sessionId.slice(0, 8)} still busy after a timed-out evaluation: terminating its script`);
        const terminate = this.#send(sessionId, 'Runtime.terminateExecution', undefined, TERMINATE_TIMEOUT_MS, undefined, false);
        const absorb = this.#send(sessionId, 'Runtime.evaluate', { expression: '0' }, TERMINATE_TIMEOUT_MS, undefined, false);
        return Promise.allSettled([terminate, absorb]).then(() => undefined);
      },
    );
    const all: Promise<void> = Promise.all([this.#stopping, stop]).then(() => {
      if (this.#stopping === all) this.#stopping = undefined;
    });
    this.#stopping = all;
  }

  #onClose(reason: string): void {
    if (this.#closedReason !== undefined) return;
    this.#closedReason = reason;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(closedError(pending.method, reason));
    }
    for (const session of this.#sessions.values()) session.markDetached(reason);
    this.#sessions.clear();
    this.emit('disconnected', reason);
    this.removeAllListeners();
  }
}

function closedError(method: string, reason: string): ConnectionClosedError {
  return new ConnectionClosedError(
    `The browser connection is closed (${reason}), so ${method} cannot complete. ` +
      'If the browser exited or crashed, create a new Sdk and call init() again.',
  );
}

/** Chrome's Inspector.detached reasons, in words; others (an extension's own) are shown as given. */
function detachedReason(reason: string | undefined): string {
  if (reason === 'target_closed') return 'the target closed';
  if (reason === 'canceled_by_user') return 'the user cancelled debugging';
  if (reason === 'replaced_with_devtools') return 'DevTools took over the target';
  if (reason === 'Render process gone.') return 'its renderer process is gone';
  return reason || 'the target detached';
}
