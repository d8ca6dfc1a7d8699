// locator.setInputFiles(): files by path go to Chrome by path (DOM.setFileInputFiles) when it runs
// here, since we launched it; files given in memory, and paths for a browser we attached to (which
// may run elsewhere, where the path means nothing), go into the page as bytes, through a
// DataTransfer. One way for payloads everywhere, the extension included: no temporary files to
// leave behind, and no Node built-in in the core (fs and path load only when a path is given).

import { ElementNotActionableError, InvalidOptionError } from '../errors.js';
import type { SetInputFilePayload, SetInputFilesArgument } from '../types.js';
import type { FilePayload } from '../injected/engine/element.js';
import type { ResolvedElement } from './frame.js';

/** Bytes sent through the protocol into the page, base64 on the way: more belongs on a local browser, by path. */
const MAX_PAYLOAD_BYTES = 50 * 1024 * 1024;
const DEFAULT_MIME = 'application/octet-stream';
// Variables, so that bundlers leave the imports to run time: the extension never gets here with a path.
const FS_MODULE = 'node:fs/promises';
const PATH_MODULE = 'node:path';

type Helper = <Result>(element: ResolvedElement, name: string, args: unknown[], timeoutMs: number) => Promise<Result>;

export async function setInputFiles(
  element: ResolvedElement,
  files: SetInputFilesArgument,
  remoteBrowser: boolean,
  helper: Helper,
  timeoutMs: number,
): Promise<void> {
  const list: unknown[] = files === null || files === undefined ? [] : Array.isArray(files) ? files : [files];
  for (const entry of list) {
    if (typeof entry === 'string' ? !entry.trim() : !isPayload(entry)) {
      throw new InvalidOptionError(
        'setInputFiles takes file paths, or { name, mimeType?, buffer } objects (buffer: a Buffer, Uint8Array, ArrayBuffer or string), or an array of them.',
      );
    }
  }
  const problem = await helper<string>(element, 'fileInputProblem', [list.length], timeoutMs);
  if (problem) throw new ElementNotActionableError(problem);
  const session = element.world.session;
  const paths = list.filter((entry): entry is string => typeof entry === 'string');
  const located = paths.length ? await locate(paths) : [];
  if (list.length && list.length === paths.length && !remoteBrowser) {
    // Chrome reads the files itself and fires input and change, as for a user's pick. (It takes no
    // empty list: [] clears the input through the page, below.)
    await session.send('DOM.setFileInputFiles', { objectId: element.objectId, files: located.map((each) => each.path) }, { timeoutMs });
    return;
  }
  const payloads: FilePayload[] = [];
  let total = 0;
  for (const entry of list) {
    const file =
      typeof entry === 'string' ? await located.find((each) => each.given === entry)!.read() : toPayload(entry as SetInputFilePayload);
    total += file.size;
    if (total > MAX_PAYLOAD_BYTES) {
      throw new InvalidOptionError(
        `setInputFiles: the files come to more than ${MAX_PAYLOAD_BYTES / 1024 / 1024} MB, too much to send into the page; pass paths, with a browser this process launched.`,
      );
    }
    payloads.push(file.payload);
  }
  await helper(element, 'putFiles', [payloads], timeoutMs);
}

function isPayload(entry: unknown): entry is SetInputFilePayload {
  if (typeof entry !== 'object' || entry === null) return false;
  const { name, buffer } = entry as SetInputFilePayload;
  return typeof name === 'string' && (typeof buffer === 'string' || buffer instanceof Uint8Array || buffer instanceof ArrayBuffer);
}

function toPayload(entry: SetInputFilePayload, lastModified = Date.now()): { payload: FilePayload; size: number } {
  const { buffer } = entry;
  const bytes =
    typeof buffer === 'string' ? new TextEncoder().encode(buffer) : buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : buffer;
  return {
    payload: {
      name: entry.name || 'upload.bin',
      mimeType: entry.mimeType || DEFAULT_MIME,
      lastModified: entry.lastModified ?? lastModified,
      base64: toBase64(bytes),
    },
    size: bytes.byteLength,
  };
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

interface Located {
  given: string;
  path: string;
  read(): Promise<{ payload: FilePayload; size: number }>;
}

/** Each path made absolute (from the working directory) and checked to be a file here. */
async function locate(paths: string[]): Promise<Located[]> {
  type Fs = typeof import('node:fs/promises');
  type Path = typeof import('node:path');
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  const modules = node
    ? await Promise.all([import(FS_MODULE) as Promise<Fs>, import(PATH_MODULE) as Promise<Path>]).catch(() => undefined)
    : undefined;
  if (!modules)
    throw new InvalidOptionError(
      'setInputFiles with file paths needs Node to read them; here, pass { name, mimeType, buffer } objects instead.',
    );
  const [fs, path] = modules;
  return Promise.all(
    paths.map(async (given) => {
      const absolute = path.resolve(given);
      const stat = await fs.stat(absolute).catch((error: NodeJS.ErrnoException) => {
        throw new InvalidOptionError(
          `setInputFiles: there is no file at ${absolute}${error.code === 'ENOENT' ? '' : ` (${error.code ?? error.message})`}.`,
        );
      });
      if (!stat.isFile()) throw new InvalidOptionError(`setInputFiles: ${absolute} is not a file (a directory, or a special file).`);
      const read = async () =>
        toPayload({ name: path.basename(absolute), buffer: new Uint8Array(await fs.readFile(absolute)) }, stat.mtimeMs);
      return { given, path: absolute, read };
    }),
  );
}
