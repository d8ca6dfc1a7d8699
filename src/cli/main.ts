#!/usr/bin/env node
// `tendril`: the command line. Exit codes scripts can rely on: 0 done, 1 the work failed (the
// message says why), 2 the command line was wrong (the usage follows).

import { SdkError } from '../errors.js';
import { hostedCommand } from './hosted.js';
import { UsageError } from './usage.js';

const USAGE = `Usage: tendril <command>

Commands:
  hosted serve    run the self-hostable hosted-browser server (tendril hosted serve --help)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command) throw new UsageError('Say which command to run.', USAGE);
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'hosted') return hostedCommand(rest);
  throw new UsageError(`Unknown command "${command}".`, USAGE);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`tendril: ${error.message}\n\n${error.usage}\n`);
      process.exitCode = 2;
      return;
    }
    // Our own errors say what went wrong and what to do; anything else gets its stack.
    const text = error instanceof SdkError ? `${error.name}: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`tendril: ${text}\n`);
    process.exitCode = 1;
  },
);
