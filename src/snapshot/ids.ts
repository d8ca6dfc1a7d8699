// Node ids of the page text. A line of the top document reads `[N]`, one of frame F (F > 0) reads
// `[F-N]`. Most lines are the top document's, and leaving out its `0-` takes about a tenth of the
// page text's tokens. `0-N` is still understood wherever an id comes back (from a model, or from a
// caller who kept an old text).

/** The id at the start of a line, after its indentation: 1 the indentation, 2 the frame (absent: 0), 3 the node. */
export const LINE_ID = /^( *)\[(?:(\d+)-)?(\d+)\]/;

/** `[N]` in the top document, `[F-N]` elsewhere. */
export function formatId(frame: number, node: number): string {
  return frame === 0 ? `[${node}]` : `[${frame}-${node}]`;
}

/** Frame and node of an id as written in a line: the groups of LINE_ID. */
export function lineId(match: RegExpExecArray): [frame: number, node: number] {
  return [Number(match[2] ?? 0), Number(match[3])];
}

/**
 * The one key of an id however it is written ("12", "[12]", "0-12", "[0-12]" are all "0-12"); the
 * text itself, trimmed, when it is no id.
 */
export function idKey(id: string): string {
  const text = String(id).trim();
  const match = /^\[?(?:(\d+)-)?(\d+)\]?$/.exec(text);
  return match ? `${Number(match[1] ?? 0)}-${Number(match[2])}` : text;
}

/** An id as the page text writes it, without its brackets ("0-12" is "12"); the text, trimmed, when it is no id. */
export function shownId(id: string): string {
  return idKey(id).replace(/^0-(?=\d+$)/, '');
}
