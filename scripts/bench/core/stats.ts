// Small summary statistics over timing samples (milliseconds).

export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds with a precision that suits the magnitude: 0.42, 12.3, 1234. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 10) return ms.toFixed(2);
  if (ms < 1000) return ms.toFixed(1);
  return ms.toFixed(0);
}

/**
 * Tendril / Stagehand, e.g. "0.42×"; below 1 means Tendril is faster. Three digits where a target
 * is near: a ratio of 0.503 must not read as meeting a 0.50 target.
 */
export function formatRatio(ours: number, theirs: number, digits = 2): string {
  if (!Number.isFinite(ours) || !Number.isFinite(theirs) || theirs <= 0) return 'n/a';
  return `${(ours / theirs).toFixed(digits)}×`;
}
