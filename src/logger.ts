import type { LogLine } from './types.js';
import { pinoSink, type LogSink } from './util/pinoSink.js';

const SECRET_KEY = /key|token|secret|password|authorization|cookie/i;

/** Replaces the values of secret-looking fields, at any depth, before a line leaves the process. */
function scrub(value: unknown, depth = 0): unknown {
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? '[redacted]' : scrub(item, depth + 1);
  }
  return out;
}

export interface LoggerOptions {
  verbose?: 0 | 1 | 2;
  disablePino?: boolean;
  logger?: (line: LogLine) => void;
}

/** What an Sdk shows of its logger (`sdk.logger`): writing lines, and the level it writes up to. */
export type SdkLogger = Pick<Logger, 'verbose' | 'log' | 'error' | 'info' | 'debug'>;

/** Lines go to the caller's `logger` callback and, unless disabled, to pino on stderr (util/pinoSink.ts). */
export class Logger {
  readonly verbose: 0 | 1 | 2;
  #pino: LogSink | undefined;

  constructor(private readonly options: LoggerOptions = {}) {
    this.verbose = options.verbose ?? 1;
  }

  log(level: 0 | 1 | 2, category: string, message: string, auxiliary?: Record<string, unknown>): void {
    if (level > this.verbose) return;
    const line: LogLine = { category, message, level, timestamp: new Date().toISOString() };
    if (auxiliary) line.auxiliary = scrub(auxiliary) as Record<string, unknown>;
    if (this.options.logger) {
      try {
        this.options.logger(line);
      } catch {
        // A broken callback must not break the operation being logged.
      }
    }
    if (this.options.disablePino) return;
    (this.#pino ??= pinoSink())(level, category, message, line.auxiliary);
  }

  error(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.log(0, category, message, auxiliary);
  }
  info(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.log(1, category, message, auxiliary);
  }
  debug(category: string, message: string, auxiliary?: Record<string, unknown>): void {
    this.log(2, category, message, auxiliary);
  }
}
