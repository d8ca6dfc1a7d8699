// The forms an init script may take (as in Stagehand and Playwright): a function with an optional
// argument, the source as a string, or { content } or { path } of a file. Each becomes one source.

import { InvalidOptionError } from '../errors.js';
import { functionDeclaration } from './evaluate.js';

/** An init script: source text, a file (`path`, read with Node) or its `content`, or a function called with `arg`. */
export type InitScript<Arg = unknown> = string | { path?: string; content?: string } | ((arg: Arg) => unknown);

/** Reads a text file; given by the runtime that has files (Node), absent in an extension. */
export type ReadTextFile = (path: string) => Promise<string>;

/** The source a script runs as. `caller` names the method in errors ("context.addInitScript"). */
export async function initScriptSource(script: unknown, arg: unknown, caller: string, readFile: ReadTextFile | undefined): Promise<string> {
  if (typeof script === 'function') {
    // The argument crosses as JSON; a value that has none (a function, a cycle) is refused here.
    let json: string | undefined;
    try {
      json = arg === undefined ? 'undefined' : JSON.stringify(arg);
    } catch (error) {
      throw new InvalidOptionError(`${caller}: \`arg\` must be JSON-serialisable (${(error as Error).message}).`);
    }
    if (json === undefined) throw new InvalidOptionError(`${caller}: \`arg\` must be JSON-serialisable, not a ${typeof arg}.`);
    return `(${functionDeclaration(script as (...args: never[]) => unknown)})(${json});`;
  }
  if (arg !== undefined)
    throw new InvalidOptionError(`${caller}: \`arg\` is only for a function script; a string or file is run as it is.`);
  if (typeof script === 'string') return script;
  const given = script as { path?: unknown; content?: unknown } | null;
  if (given && typeof given === 'object' && typeof given.content === 'string') return given.content;
  if (given && typeof given === 'object' && typeof given.path === 'string' && given.path.trim()) {
    if (!readFile)
      throw new InvalidOptionError(`${caller}: { path } needs to read a file, which this runtime cannot; pass { content } instead.`);
    let source: string;
    try {
      source = await readFile(given.path);
    } catch (error) {
      throw new InvalidOptionError(`${caller}: could not read ${given.path} (${(error as Error).message}).`);
    }
    // Named after its file in stack traces and the DevTools source list.
    return `${source}\n//# sourceURL=${given.path.replace(/[\r\n]/g, '')}`;
  }
  throw new InvalidOptionError(`${caller}: pass a function, the source as a string, or { path } or { content } of a script file.`);
}
