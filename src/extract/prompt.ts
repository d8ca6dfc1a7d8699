// The words sent with every extraction. Short on purpose: every token here is paid on every call,
// and the page text already says what the elements are.

const BASE_PROMPT = [
  'You extract data from a web page for a program.',
  'The page is an accessibility tree: one element per line, "role: name", indented under its parent.',
  'Use only what the page says; never invent values.',
  'Reply with JSON that fits the schema. Use null where the page has no value for a field that allows null.',
];

/** The system prompt; the words about link ids only when the schema asks for links. */
export function systemPrompt(links: boolean): string {
  return [
    ...BASE_PROMPT,
    ...(links ? ['Links start with an id in brackets; for a link field give that id (such as "12" or "1-12"), never a URL.'] : []),
  ].join('\n');
}

const ID = /^(\s*)\[(?:\d+-)?\d+\] /;
const LINK = /^\s*\[(?:\d+-)?\d+\] link\b/;

/**
 * The page text as the model gets it: node ids only on links, and only when the schema has link
 * fields. An id costs about five tokens a line and the model needs none of the others.
 */
export function pageForModel(text: string, links: boolean): string {
  return text
    .split('\n')
    .map((line) => (links && LINK.test(line) ? line : line.replace(ID, '$1')))
    .join('\n');
}

export interface PromptParts {
  instruction: string;
  url: string;
  selector?: string;
  text: string;
  /** 1-based index and count of chunks, when the page is sent in parts. */
  part?: { index: number; count: number; contextLines: number };
}

export function userPrompt(parts: PromptParts): string {
  const where = parts.selector
    ? `The part of the page at ${parts.url} matched by ${JSON.stringify(parts.selector)}`
    : `The page at ${parts.url}`;
  let head = `Instruction: ${parts.instruction}\n\n${where}`;
  if (parts.part) {
    head +=
      ` is too long for one request; this is part ${parts.part.index} of ${parts.part.count}.` +
      (parts.part.contextLines
        ? ` Its first ${parts.part.contextLines} line(s) are the elements enclosing it, repeated for context.`
        : '') +
      ' Extract what this part shows; use null or an empty list for what it does not.';
  }
  return `${head}:\n${parts.text}`;
}

/** The prompt without the page: what every chunk carries besides its share of the page text. */
export function promptOverhead(parts: Omit<PromptParts, 'text' | 'part'>, links: boolean): string {
  return systemPrompt(links) + userPrompt({ ...parts, text: '', part: { index: 99, count: 99, contextLines: 99 } });
}
