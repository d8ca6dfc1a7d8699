// How much text one model call may carry. Token counts are estimated, not tokenized: a tokenizer
// would add megabytes to every bundle, and the estimate errs on the high side, so a chunk that fits
// by our count fits by the model's.

/** Input windows of models we know, in tokens; the first matching pattern wins. */
const KNOWN: Array<[RegExp, number]> = [
  [/^gpt-4\.1/, 1_000_000],
  [/^gpt-5/, 272_000],
  [/^(o1|o3|o4)(-|$)/, 200_000],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo)/, 128_000],
  [/^gpt-3\.5/, 16_000],
  [/^gpt-4(-|$)/, 8_000],
  [/^claude-/, 200_000],
  [/^gemini-/, 1_000_000],
  [/^grok-4/, 256_000],
  [/^grok-/, 131_000],
  [/^deepseek-/, 64_000],
  [/^(mistral-large|mistral-medium|mistral-small|codestral|ministral|magistral|pixtral)/, 128_000],
  [/(llama-3\.[1-3]|llama-4|qwen|gpt-oss|kimi)/, 128_000],
];

/** Unknown hosted models: enough for most pages, small enough for any current model. */
const UNKNOWN_HOSTED = 32_000;
/** Self-hosted servers often run with a small context (Ollama's default is a few thousand). */
const UNKNOWN_LOCAL = 8_000;

export function defaultMaxInputTokens(modelId: string, local: boolean): number {
  if (local) return UNKNOWN_LOCAL;
  const id = modelId.toLowerCase().replace(/^.*\//, '');
  return KNOWN.find(([pattern]) => pattern.test(id))?.[1] ?? UNKNOWN_HOSTED;
}

/**
 * Tokens of a text, over-estimated the way BPE tokenizers split it: a word of letters is a token per
 * five letters, digits go three to a token, punctuation and characters outside ASCII (CJK, emoji)
 * are a token each, and a space is free only before a word it merges with. Checked against
 * o200k_base on real pages' text and on number-heavy tables: it comes out 0–25% high.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(RUNS)) {
    const run = match[0];
    const code = run.charCodeAt(0);
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) tokens += Math.ceil(run.length / 5);
    else if (code >= 48 && code <= 57) tokens += Math.ceil(run.length / 3);
    else if (code === 32 || code === 9 || code === 10) {
      if (run.includes('\n')) tokens += run.length > 1 ? 2 : 1;
      else tokens += run.length > 1 || !isLetter(text.charCodeAt((match.index ?? 0) + 1)) ? 1 : 0;
    } else tokens += 1;
  }
  return tokens;
}

const RUNS = /[A-Za-z]+|\d+|[ \t]*\n[ \t]*|[ \t]+|[^A-Za-z\d \t\n]/g;

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}
