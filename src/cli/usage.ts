// The command line's own error: wrong words on the command line. It prints the usage and exits 2.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The command's flags (strict: an unknown one is a UsageError with the command's usage). */
export function parseFlags<T extends Options>(argv: string[], options: T, usage: string, positionals = false) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
}
