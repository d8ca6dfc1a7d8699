// The command line's dispatch and its report of a failure: what `tendril ARGS` runs and how an
// error becomes its stderr line and exit code. main.ts (the bin) runs it on process.argv; kept apart
// so that a test can run many commands through the same path in one process.

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

/** Runs `tendril …argv`: resolves with the exit code, or rejects with what failureOf() reports. */
export async function runCommand(argv: string[]): Promise<number> {
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

/** What the command line says of a failure on stderr, and the exit code it ends with. */
export function failureOf(error: unknown): { code: number; text: string } {
  if (error instanceof UsageError) return { code: 2, text: `tendril: ${error.message}\n\n${error.usage}\n` };
  // Our own errors say what went wrong and what to do; anything else gets its stack.
  const text =
    error instanceof SdkError ? `${error.name}: ${error.message}` : error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: exitCodeOf(error), text: `tendril: ${text}\n` };
}
