// Ends a session nobody uses: one that no client attached to, or whose clients all left without
// releasing it (a client that crashed, or whose release never arrived), once it has been idle for
// HOSTED_IDLE_TIMEOUT_MS. A connectUrl client or a REST operation in progress holds it; keepAlive
// sessions are made to wait for a client and are not watched.

export class IdleWatch {
  #holders = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly onIdle: () => void,
  ) {
    this.#arm();
  }

  /** Holds the session while something uses it; the function returned lets go (once). */
  hold(): () => void {
    this.#holders++;
    clearTimeout(this.#timer);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.#holders === 0) this.#arm();
    };
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      if (!this.#stopped && this.#holders === 0) this.onIdle();
    }, this.timeoutMs);
  }
}
