// The closed-shadow-root watch: a page script for the page's own (main) world, which the driver adds
// with Page.addScriptToEvaluateOnNewDocument so that it runs before any script of a new document.
// esbuild bundles this folder into WATCH_SOURCE (generated.ts).
//
// Why: page script, ours included, cannot see a closed shadow root, and finding them over the
// protocol means serialising the whole document, which costs more than reading it. A document that
// says it never attached one (and parsed no declarative ones through script) needs no such scan.
// The report goes through a binding the driver adds for the purpose (Runtime.addBinding), which this
// script takes away from the page before the page's first script runs.

/** Sends `c<n>` after n closed roots were attached, `d<n>` after n calls that may parse declarative ones. */
export function watchClosedRoots(binding: string): void {
  const scope = globalThis as unknown as Record<string, unknown>;
  const report = scope[binding];
  delete scope[binding];
  if (typeof report !== 'function') return;
  const send = (message: string) => {
    try {
      (report as (payload: string) => void)(message);
    } catch {
      // The binding is gone (a detached session): the driver falls back to scanning.
    }
  };
  const modeOf = Object.getOwnPropertyDescriptor(ShadowRoot.prototype, 'mode')?.get;
  let closed = 0;
  let declarative = 0;
  const wrap = (owner: object | undefined, name: string, after: (result: unknown, args: unknown[]) => void) => {
    const original = owner && (Reflect.get(owner, name) as unknown);
    if (typeof original !== 'function') return;
    // A Proxy of the native function: calls, `this`, `new.target` and toString() behave as before.
    Reflect.set(
      owner!,
      name,
      new Proxy(original, {
        apply(target, self, args) {
          const result: unknown = Reflect.apply(target as (...a: unknown[]) => unknown, self, args);
          after(result, args);
          return result;
        },
      }),
    );
  };
  wrap(Element.prototype, 'attachShadow', (root) => {
    if (modeOf && Reflect.apply(modeOf, root, []) === 'closed') send(`c${++closed}`);
  });
  // Declarative shadow roots from script: counted as "maybe", since the markup says no more than that.
  const parses = (_result: unknown, args: unknown[]) => {
    if (/shadowrootmode/i.test(String(args[0]))) send(`d${++declarative}`);
  };
  wrap(Element.prototype, 'setHTMLUnsafe', parses);
  wrap(globalThis.ShadowRoot?.prototype, 'setHTMLUnsafe', parses);
  wrap(Document, 'parseHTMLUnsafe', parses);
  send('c0');
}
