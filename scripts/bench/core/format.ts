// The pieces of markdown every measurement's report writes alike: a library's cell, the ratios
// against each Stagehand, a table's head, a target's verdict, the line of facts under a table.
import { formatMs, formatRatio, median } from './stats.js';

/** A library as the tables show it. */
export interface Column {
  readonly id: string;
  readonly label: string;
}

/** The heading of the ratio column against `col`: "ratio / 4.4.0" (ours divided by theirs). */
export function ratioHeading(col: Column): string {
  return `ratio / ${col.label.replace(/^Stagehand /, '')}`;
}

export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Decimal units, as pageText sizes are compared, not allocated. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return 'n/a';
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(2)} MB`;
}

/** ours / theirs, NaN unless both are numbers and theirs is above 0. */
export function ratio(ours: number, theirs: number): number {
  return Number.isFinite(ours) && Number.isFinite(theirs) && theirs > 0 ? ours / theirs : Number.NaN;
}

/** Whether a ratio meets a target of at most `max`; null when there is no ratio to judge. */
export function atMost(r: number, max: number): boolean | null {
  return Number.isFinite(r) ? r <= max : null;
}

/** One library's cell: what it shows, and the number behind it for ratios (NaN where none). */
export interface Cell {
  readonly text: string;
  readonly value: number;
}

/** The library did not run (left out with --only, or nothing to show). */
export const NOT_RUN: Cell = { text: '—', value: Number.NaN };
export const FAILED: Cell = { text: 'failed', value: Number.NaN };

/** The median of timing samples, in ms. */
export function msCell(samples: readonly number[]): Cell {
  const m = median(samples);
  return { text: formatMs(m), value: m };
}

/** A library's result where it got through, or the reason it did not. */
type Outcome = { readonly ok: true } | { readonly ok: false };

/** "—" for no outcome, "failed" for a failed one, else `show` of it. */
export function outcomeCell<O extends Outcome>(o: O | undefined, show: (v: Extract<O, { ok: true }>) => Cell): Cell {
  if (!o) return NOT_RUN;
  return o.ok ? show(o as Extract<O, { ok: true }>) : FAILED;
}

/** The median of the samples `pick` takes from an outcome (as `outcomeCell`). */
export function medianCell<O extends Outcome>(o: O | undefined, pick: (v: Extract<O, { ok: true }>) => readonly number[]): Cell {
  return outcomeCell(o, (v) => msCell(pick(v)));
}

/** The first cell (ours) against each of the others, e.g. "0.42×"; `digits` 3 where a target is near. */
export function ratioCells(cells: readonly Cell[], digits = 2): string[] {
  return cells.slice(1).map((c) => formatRatio(cells[0]!.value, c.value, digits));
}

/** A table's two head lines: its first column, then right-aligned (numbers) and left-aligned (text) ones. */
export function tableHead(first: string, numbers: readonly string[], texts: readonly string[] = []): string[] {
  return [
    `| ${[first, ...numbers, ...texts].join(' | ')} |`,
    `| ${['---', ...numbers.map(() => '---:'), ...texts.map(() => '---')].join(' | ')} |`,
  ];
}

export const tableRow = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

/** "≤ 0.10×: pass" / "≤ 0.10×: **FAIL**" / "≤ 0.10×: n/a": the page measurements' targets. */
export function verdict(goal: string, pass: boolean | null): string {
  return `${goal}: ${pass === null ? 'n/a' : pass ? 'pass' : '**FAIL**'}`;
}

/** "≤ 0.50×: pass" / "≤ 0.50×: FAIL", empty with nothing to judge: the other tables' targets. */
export function targetCell(goal: string, pass: boolean | null): string {
  return pass === null ? '' : `${goal}: ${pass ? 'pass' : 'FAIL'}`;
}

/** The italic line of facts under a table. */
export const metaLine = (parts: readonly string[]): string => `_${parts.join(' · ')}_`;

/** "Tendril failed: why." under a table. */
export const failedLine = (label: string, error: string): string => `${label} failed: ${error.replace(/\.+$/, '')}.`;
