// A JSON file a flag names (--schema, --storage-state), read before anything starts, so that a
// missing or broken file stops the command at once, naming the flag and the file.

import { readFile } from 'node:fs/promises';
import { InvalidOptionError } from '../errors.js';

export async function readJsonFlag(flag: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidOptionError(`${flag} ${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidOptionError(`${flag} ${file} is not JSON: ${(error as Error).message}`);
  }
}
