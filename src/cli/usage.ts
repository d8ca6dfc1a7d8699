// The command line's own error: wrong words on the command line. It prints the usage and exits 2.

import { parseArgs } from 'node:util';

export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;
/** What parseArgs gives for such options (written out: its own type cannot be named in declarations). */
type Flags<T extends Options> = { values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string }; positionals: string[] };

/** The command's flags (strict: an unknown one is a UsageError with the command's usage). */
export function parseFlags<T extends Options>(argv: string[], options: T, usage: string, positionals = false): Flags<T> {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: positionals }) as Flags<T>;
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
}

/** `--port`'s value: 0 (any free port) to 65535. */
export function parsePort(raw: string, usage: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port takes a port number, not ${JSON.stringify(raw)}.`, usage);
  return port;
}
