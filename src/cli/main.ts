#!/usr/bin/env node
// `tendril`: the command line. Exit codes scripts can rely on: 0 done; 1 the browser, the page or
// the service failed; 2 the command line or an input was wrong (a usage error prints the usage);
// 3 the model failed, or its answer did not fit the schema.

import {
  InvalidAISDKModelFormatError,
  InvalidOptionError,
  LLMResponseError,
  MissingLLMConfigurationError,
  SchemaValidationError,
  SdkError,
  SelectorSyntaxError,
  UnsupportedModelError,
} from '../errors.js';
import { hostedCommand } from './hosted.js';
import { extractCommand, textCommand } from './page.js';
import { relayCommand } from './relay.js';
import { UsageError } from './usage.js';
import { packageVersion } from './version.js';

const USAGE = `Usage: tendril <command>

Commands:
  text <url>                       print the page as text
  extract <url> "<instruction>"    print what a model extracts from the page, as JSON
  mcp                              run an MCP server (stdio, or HTTP with --port) for agents
  hosted serve                     run the self-hostable hosted-browser server
  relay                            let clients drive the tabs you share from the Tendril extension
  batch add|status|results         queue batch jobs in Redis, follow them, read their results
  worker                           run a batch queue's jobs (as many workers as you like)

\`tendril <command> --help\` tells more; \`tendril --version\` prints the version.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command) throw new UsageError('Say which command to run.', USAGE);
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === 'text') return textCommand(rest);
  if (command === 'extract') return extractCommand(rest);
  if (command === 'hosted') return hostedCommand(rest);
  if (command === 'relay') return relayCommand(rest);
  // Loaded only when used, as BullMQ and Redis are.
  if (command === 'batch') return (await import('./batch.js')).batchCommand(rest);
  if (command === 'worker') return (await import('./worker.js')).workerCommand(rest);
  // Loaded only when used: the MCP SDK is not small, and `tendril text` should start fast.
  if (command === 'mcp') return (await import('./mcp.js')).mcpCommand(rest);
  throw new UsageError(`Unknown command "${command}".`, USAGE);
}

const INPUT_ERRORS = [
  InvalidOptionError,
  MissingLLMConfigurationError,
  UnsupportedModelError,
  InvalidAISDKModelFormatError,
  SelectorSyntaxError,
];

function exitCodeOf(error: unknown): number {
  if (error instanceof LLMResponseError || error instanceof SchemaValidationError) return 3;
  if (INPUT_ERRORS.some((type) => error instanceof type)) return 2;
  return 1;
}

// A reader that stops early (`tendril batch results | head`) closes the pipe: nobody reads what is
// left, so the command ends there, quietly (exit 0, or the code already set), as Unix tools do,
// rather than with the stack of an unhandled EPIPE. A closed stderr only loses what it would say.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit();
});
process.stderr.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

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
    const text =
      error instanceof SdkError
        ? `${error.name}: ${error.message}`
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error);
    process.stderr.write(`tendril: ${text}\n`);
    process.exitCode = exitCodeOf(error);
  },
);
