// What a trace holds while it records: the lines of trace.trace and trace.network, and the files
// under resources/, each within the size bounds of docs/tracing.md ("Size").

/** The bounds of one trace's size. */
export const LIMITS = {
  /** A parameter or result longer than this (as JSON) goes into an attachment instead. */
  inlineChars: 2_000,
  /** One attachment (page text, a model request): cut beyond this, saying so. */
  attachmentBytes: 1_000_000,
  /** One response body kept for the snapshots (stylesheets, images, fonts, documents). */
  bodyBytes: 2_000_000,
  /** Every file under resources/ together: past it, no more bodies, frames or snapshots are kept. */
  resourceBytes: 50_000_000,
  /** Screencast frames kept per page and second. */
  framesPerSecond: 4,
  /** Lines of trace.trace and trace.network each (console floods, request storms). */
  lines: 100_000,
} as const;

const encoder = new TextEncoder();

export class TraceStore {
  readonly trace: string[] = [];
  readonly network: string[] = [];
  readonly resources = new Map<string, Uint8Array>();
  #resourceBytes = 0;
  #counter = 0;
  /** Lines left out once a file reached its bound. */
  dropped = 0;

  write(event: object): void {
    if (this.trace.length >= LIMITS.lines) return void this.dropped++;
    this.trace.push(JSON.stringify(event));
  }

  writeNetwork(event: object): void {
    if (this.network.length >= LIMITS.lines) return void this.dropped++;
    this.network.push(JSON.stringify(event));
  }

  /** True while resources may still be added. */
  get roomy(): boolean {
    return this.#resourceBytes < LIMITS.resourceBytes;
  }

  /**
   * Keeps `data` as a file under resources/ and resolves with its path; undefined past the bound.
   * Named by its SHA-1 where the platform has one (equal contents kept once), else by a counter.
   */
  async resource(data: Uint8Array | string, extension: string): Promise<string | undefined> {
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    if (this.#resourceBytes + bytes.length > LIMITS.resourceBytes) return undefined;
    const name = `resources/${await digest(bytes, () => `r${++this.#counter}`)}.${extension}`;
    if (!this.resources.has(name)) {
      this.resources.set(name, bytes);
      this.#resourceBytes += bytes.length;
    }
    return name;
  }
}

async function digest(bytes: Uint8Array, fallback: () => string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return fallback();
  const hash = new Uint8Array(await subtle.digest('SHA-1', bytes as BufferSource));
  return [...hash].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** `text` cut to the attachment bound, saying where. */
export function bounded(text: string): string {
  if (text.length <= LIMITS.attachmentBytes) return text;
  return `${text.slice(0, LIMITS.attachmentBytes)}\n… (cut: ${text.length - LIMITS.attachmentBytes} more characters; docs/tracing.md, "Size")`;
}
