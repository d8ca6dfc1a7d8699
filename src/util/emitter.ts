// A minimal typed event emitter. We avoid node:events so the CDP layer also runs where there is no
// Node (edge runtimes talking to a hosted browser).

type Handler<T> = (payload: T) => void;

export class Emitter<Events extends Record<string, unknown>> {
  #handlers = new Map<keyof Events, Set<Handler<never>>>();

  on<K extends keyof Events>(event: K, handler: Handler<Events[K]>): () => void {
    let set = this.#handlers.get(event);
    if (!set) this.#handlers.set(event, (set = new Set()));
    set.add(handler as Handler<never>);
    return () => this.off(event, handler);
  }

  once<K extends keyof Events>(event: K, handler: Handler<Events[K]>): () => void {
    const off = this.on(event, (payload) => {
      off();
      handler(payload);
    });
    return off;
  }

  off<K extends keyof Events>(event: K, handler: Handler<Events[K]>): void {
    this.#handlers.get(event)?.delete(handler as Handler<never>);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#handlers.get(event);
    if (!set) return;
    // Copy: a handler may remove itself (once) while we iterate.
    for (const handler of [...set]) (handler as Handler<Events[K]>)(payload);
  }

  listenerCount(event: keyof Events): number {
    return this.#handlers.get(event)?.size ?? 0;
  }

  removeAllListeners(): void {
    this.#handlers.clear();
  }
}
