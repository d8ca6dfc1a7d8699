// What page.on('console') hands its listeners: one call of the page's console API (console.log,
// .error, ...), from any frame of the page, out-of-process iframes included, as Stagehand's
// ConsoleMessage has it.

import type { Protocol } from 'devtools-protocol';

type Event = Protocol.Runtime.ConsoleAPICalledEvent;

export class ConsoleMessage<PageType = unknown> {
  /** @internal */
  constructor(
    private readonly event: Event,
    private readonly pageRef?: PageType,
  ) {}

  /** "log", "error", "warning", "info", "debug", "table", ... (the protocol's names). */
  type(): Event['type'] {
    return this.event.type;
  }

  /** The arguments as the console prints them, joined by spaces. */
  text(): string {
    return this.args()
      .map(argumentText)
      .filter((each) => each.length > 0)
      .join(' ');
  }

  /** The arguments as the protocol describes them (values, or descriptions of objects). */
  args(): Protocol.Runtime.RemoteObject[] {
    return [...(this.event.args ?? [])];
  }

  /** Where the call was made, when the page's stack says. */
  location(): { url?: string; lineNumber?: number; columnNumber?: number } {
    const frame = this.event.stackTrace?.callFrames?.[0];
    return { url: frame?.url, lineNumber: frame?.lineNumber, columnNumber: frame?.columnNumber };
  }

  page(): PageType | undefined {
    return this.pageRef;
  }

  /** When the call was made, in milliseconds since the epoch. */
  timestamp(): number | undefined {
    return this.event.timestamp;
  }

  /** The protocol's event, whole. */
  raw(): Event {
    return this.event;
  }

  toString(): string {
    return this.text();
  }
}

function argumentText(arg: Protocol.Runtime.RemoteObject): string {
  if ('value' in arg) {
    if (arg.value === undefined) return '';
    if (typeof arg.value === 'string') return arg.value;
    try {
      return JSON.stringify(arg.value);
    } catch {
      return String(arg.value);
    }
  }
  return arg.unserializableValue ?? arg.description ?? arg.type;
}
