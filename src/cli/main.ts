#!/usr/bin/env node
// `tendril`: the command line. Exit codes scripts can rely on: 0 done; 1 the browser, the page or
// the service failed; 2 the command line or an input was wrong (a usage error prints the usage);
// 3 the model failed, or its answer did not fit the schema.

import { failureOf, runCommand } from './run.js';

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

runCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const { code, text } = failureOf(error);
    process.stderr.write(text);
    process.exitCode = code;
  },
);
