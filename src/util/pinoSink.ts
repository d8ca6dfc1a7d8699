// Where log lines go unless the caller turns pino off: pino on stderr (stdout is left to the program
// using us), without transports: those start worker threads, which break in bundled serverless
// code. Apart from logger.ts so that tendril/extension, whose Sdk always turns pino off, leaves this
// file out (scripts/extension-bundle.mjs).
import pino from 'pino';

/** Writes one line: level 0 error, 1 info, 2 debug. */
export type LogSink = (level: 0 | 1 | 2, category: string, message: string, auxiliary?: Record<string, unknown>) => void;

export function pinoSink(): LogSink {
  const logger = pino({ level: 'debug', base: undefined }, pino.destination({ dest: 2, sync: true }));
  return (level, category, message, auxiliary) => {
    const fields = { category, ...auxiliary };
    if (level === 0) logger.error(fields, message);
    else if (level === 1) logger.info(fields, message);
    else logger.debug(fields, message);
  };
}
