// The closed-shadow-root watch: a page script for the page's own (main) world, which the driver adds
// with Page.addScriptToEvaluateOnNewDocument so that it runs before any script of a new document.
// esbuild bundles this folder into WATCH_SOURCE (generated.ts).
//
// Why: page script, ours included, cannot see a closed shadow root, and finding them over the
// protocol means serialising the whole document, which costs more than reading it. A document that
// says it never attached one (and parsed no declarative ones through script) needs no such scan.
// The report goes through a binding the driver adds for the purpose (Runtime.addBinding), which this
// script takes away from the page before the page's first script runs.
//
// The page must not be able to tell the wrappers from Chrome's own functions (docs/page-text.md):
// - they call nothing the page can replace later: every built-in they use is taken here, before
//   any page script, so a page that hooks Reflect.apply, Function.prototype.call and the like sees
//   no call from them;
// - each is a method (no `prototype`, not a constructor, `name` and `length` as Chrome's), and the
//   build puts 64 KiB of blanks between its name and its parameters (esbuild.config.mjs): V8 keeps
//   no source offset that far, so Function.prototype.toString prints it as Chrome prints its own,
//   `function attachShadow() { [native code] }`. A Proxy would print without the name;
// - a call Chrome refuses throws Chrome's own error, whose stack is taken again from below the
//   wrapper, so it lists the page's frames only, as it does without the watch.
// What is left: page code that Chrome runs during the call (a getter on the init dictionary, the
// toString of markup, a custom element's callbacks while setHTMLUnsafe parses) sees the wrapper's
// frame in its own stack, and the wrapper's frame counts toward the page's stack-depth limit.

/** Sends `c<n>` after n closed roots were attached, `d<n>` after n calls that may parse declarative ones. */
export function watchClosedRoots(binding: string): void {
  const scope = globalThis as unknown as Record<string, unknown>;
  const report = scope[binding];
  delete scope[binding];
  if (typeof report !== 'function') return;
  const { apply, getPrototypeOf } = Reflect;
  // V8's own (every page this runs in is Chrome's), which the DOM's types do not declare.
  const captureStack = (Error as ErrorConstructor & { captureStackTrace(target: object, below?: Function): void }).captureStackTrace;
  const { toLowerCase, includes } = String.prototype;
  const modeOf = Object.getOwnPropertyDescriptor(ShadowRoot.prototype, 'mode')?.get;
  // The prototypes of what Chrome throws from these functions (a refused call, a bad argument).
  const typeError: unknown = TypeError.prototype;
  const domException: unknown = globalThis.DOMException?.prototype;
  const send = (message: string) => {
    try {
      apply(report as (payload: string) => void, undefined, [message]);
    } catch {
      // The binding is gone (a detached session): the driver falls back to scanning.
    }
  };
  /**
   * Chrome's error, its stack taken again as the page's caller would have seen it without the
   * wrapper. Only Chrome's kinds: an error of the page's own, thrown from a getter Chrome called,
   * keeps the stack it was made with.
   */
  const rethrown = (error: unknown, wrapper: unknown): unknown => {
    if (typeof error === 'object' && error !== null && captureStack) {
      try {
        const kind = getPrototypeOf(error);
        if (kind === typeError || kind === domException) captureStack(error, wrapper as () => void);
      } catch {
        // A frozen error keeps the stack it has.
      }
    }
    return error;
  };
  let closed = 0;
  let declarative = 0;
  /** Declarative shadow roots from script: counted as "maybe", since the markup says no more than that. */
  const parsed = (html: unknown) => {
    // Markup given as an object (TrustedHTML, or anything with a toString) is not converted a
    // second time: that would run the page's toString again. Other values' text has no markup.
    const maybe =
      typeof html === 'string'
        ? apply(includes, apply(toLowerCase, html, []), ['shadowrootmode'])
        : typeof html === 'function' || (typeof html === 'object' && html !== null);
    if (maybe) send(`d${++declarative}`);
  };

  const element = Element.prototype as unknown as Record<string, unknown>;
  const attach = element.attachShadow;
  if (typeof attach === 'function') {
    const wrappers = {
      attachShadow(this: Element, _init: ShadowRootInit): ShadowRoot {
        let root: ShadowRoot;
        try {
          root = apply(attach, this, arguments) as ShadowRoot;
        } catch (error) {
          throw rethrown(error, wrappers.attachShadow);
        }
        if (modeOf && apply(modeOf, root, []) === 'closed') send(`c${++closed}`);
        return root;
      },
    };
    element.attachShadow = wrappers.attachShadow;
  }
  const setHTML = (owner: Record<string, unknown> | undefined) => {
    const native = owner?.setHTMLUnsafe;
    if (typeof native !== 'function') return;
    const wrappers = {
      setHTMLUnsafe(this: Element, html: string): void {
        try {
          apply(native, this, arguments);
        } catch (error) {
          throw rethrown(error, wrappers.setHTMLUnsafe);
        }
        parsed(html);
      },
    };
    owner!.setHTMLUnsafe = wrappers.setHTMLUnsafe;
  };
  setHTML(element);
  setHTML(globalThis.ShadowRoot?.prototype as unknown as Record<string, unknown> | undefined);
  const documents = Document as unknown as Record<string, unknown>;
  const parse = documents.parseHTMLUnsafe;
  if (typeof parse === 'function') {
    const wrappers = {
      parseHTMLUnsafe(this: unknown, html: string): Document {
        let made: Document;
        try {
          made = apply(parse, this, arguments) as Document;
        } catch (error) {
          throw rethrown(error, wrappers.parseHTMLUnsafe);
        }
        parsed(html);
        return made;
      },
    };
    documents.parseHTMLUnsafe = wrappers.parseHTMLUnsafe;
  }
  send('c0');
}
