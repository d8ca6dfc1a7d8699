// Progress on stderr, so stdout holds only the result. A spinner only when stderr is a terminal;
// piped or logged, each step is one plain line.

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Progress {
  readonly #tty: boolean;
  readonly #quiet: boolean;
  #timer: ReturnType<typeof setInterval> | undefined;
  #text = '';
  #frame = 0;

  constructor(stream: NodeJS.WriteStream, quiet: boolean) {
    this.#tty = stream.isTTY === true;
    this.#quiet = quiet;
  }

  step(text: string): void {
    if (this.#quiet) return;
    this.#text = text;
    if (!this.#tty) return void process.stderr.write(`${text}\n`);
    this.#timer ??= setInterval(() => this.#draw(), 80);
    this.#timer.unref();
    this.#draw();
  }

  /** Clears the spinner line; call before anything else is written to stderr. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#tty && this.#text) process.stderr.write('\r\x1b[2K');
    this.#text = '';
  }

  #draw(): void {
    this.#frame = (this.#frame + 1) % FRAMES.length;
    process.stderr.write(`\r\x1b[2K${FRAMES[this.#frame]} ${this.#text}`);
  }
}
