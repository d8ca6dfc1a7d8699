// Reading a text file (an init script's { path }): Node only, loaded when used; edge bundles stub it.

import { readFile } from 'node:fs/promises';

export function readTextFile(file: string): Promise<string> {
  return readFile(file, 'utf8');
}
