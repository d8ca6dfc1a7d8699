// The libraries the bench compares, in the order they run within every iteration (A B A B ...).
import type { LibraryAdapter } from '../core/adapter.js';
import type { Column } from '../core/format.js';

export const OURS: Column = { id: 'tendril', label: 'Tendril' };
export const THEIRS: Column = { id: 'stagehand', label: 'Stagehand 3.7.3' };
/** Stagehand 4.4.0, run in a node 22 child process (stagehand4.ts). */
export const THEIRS4: Column = { id: 'stagehand4', label: 'Stagehand 4.4.0' };
export const COLUMNS: readonly Column[] = [OURS, THEIRS, THEIRS4];

/** Loaded only when selected: a Stagehand is installed on first use. */
export async function loadLibrary(id: string, log: (line: string) => void): Promise<LibraryAdapter> {
  if (id === OURS.id) return (await import('./tendril.js')).loadTendril();
  if (id === THEIRS.id) return (await import('./stagehand.js')).loadStagehand(log);
  if (id === THEIRS4.id) return (await import('./stagehand4.js')).loadStagehand4(log);
  throw new Error(`unknown library ${id}`);
}

export function labelOf(id: string): string {
  return COLUMNS.find((c) => c.id === id)?.label ?? id;
}
