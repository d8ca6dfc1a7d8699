// Word recall of a ground-truth text in a page text: how many of its words (with multiplicity) the
// page text contains. Words are lowercase runs of Unicode letters and digits.

export type WordCounts = ReadonlyMap<string, number>;

export function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [word] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

export interface Recall {
  /** Sum over distinct ground-truth words of min(count in truth, count in text). */
  readonly matched: number;
  /** Number of words in the ground truth. */
  readonly total: number;
}

/**
 * What a page text says of the page: each line without its node id and role (`[0-12] link: `), which
 * are the library's notation, not the page's words. Their digits and role names would otherwise
 * count as found words ("0", "12", "link", "main"), more for a library with more ids or lines.
 */
export function contentOf(pageText: string): string {
  return pageText.replace(/^[ \t]*\[[^\]\s]*\][ \t]*(?:[^:\n]*: |[^:\n]*$)/gm, '');
}

/** Recall of `truth` in what `pageText` says of the page (contentOf). */
export function recall(truth: WordCounts, pageText: string): Recall {
  const found = wordCounts(contentOf(pageText));
  let matched = 0;
  let total = 0;
  for (const [word, n] of truth) {
    total += n;
    matched += Math.min(n, found.get(word) ?? 0);
  }
  return { matched, total };
}

/** matched / total, NaN for an empty ground truth. */
export function recallValue(r: Recall | null | undefined): number {
  return r && r.total > 0 ? r.matched / r.total : Number.NaN;
}
