// Long option lists in the page text given to act() and observe(). A <select> of 10,000 options is
// 10,000 lines: enough to fill a model's input, or to split the page into parts where the list's own
// line and the wanted option land apart. The model is shown a few options of such a list, the
// selected ones, and the ones the instruction names (matched here, not by the model); selectOption
// takes any option's text or value, shown or not. extract() keeps every option.

/** Lists up to this many options long are shown whole. */
const WHOLE = 40;
/** How many of a longer list's first options are shown. */
const HEAD = 8;
/** At most this many options the instruction names are shown per list. */
const NAMED = 10;

const OPTION = /^(\s*)\[[\d-]+\] option: (.*?)((?: \[(?:selected|disabled)\])*)$/;
const WORD = /[\p{L}\p{N}]/u;

/** What the model is told when a list was cut short: put beside the instruction. */
export const CUT_NOTE =
  'Long option lists are cut short ("… N more options"); selectOption takes any option\'s text or value, shown or not.';

/** The page text with each list of more than WHOLE sibling options cut short; `cut` says whether one was. */
export function shortenOptionLists(text: string, instruction = ''): { text: string; cut: boolean } {
  const lines = text.split('\n');
  const out: string[] = [];
  const wanted = wantedTexts(instruction);
  let cut = false;
  for (let i = 0; i < lines.length; ) {
    const first = OPTION.exec(lines[i]!);
    let end = i + 1;
    while (first && end < lines.length && OPTION.exec(lines[end]!)?.[1] === first[1]) end++;
    if (!first || end - i <= WHOLE) {
      out.push(...lines.slice(i, end));
      i = end;
      continue;
    }
    cut = true;
    let named = 0;
    let hidden = 0;
    for (let at = i; at < end; at++) {
      const [, pad, name, states] = OPTION.exec(lines[at]!)!;
      let keep = at - i < HEAD || states!.includes('[selected]');
      if (!keep && named < NAMED && names(name!, wanted)) keep = ++named > 0;
      if (!keep) hidden++;
      if (keep || at === end - 1) {
        if (hidden) out.push(`${pad}… ${hidden.toLocaleString('en-US')} more options`);
        hidden = 0;
      }
      if (keep) out.push(lines[at]!);
    }
    i = end;
  }
  return { text: cut ? out.join('\n') : text, cut };
}

/** The instruction, lower-cased, and its quoted parts (an option holding one is named too). */
function wantedTexts(instruction: string): string[] {
  const quotes = [...instruction.matchAll(/"([^"]+)"|'([^']+)'|“([^”]+)”/g)].map((match) =>
    (match[1] ?? match[2] ?? match[3]!).trim().toLowerCase(),
  );
  return [instruction.toLowerCase(), ...quotes.filter(Boolean)];
}

/** Whether the instruction names the option: its text as whole words there, or a quoted part in its text. */
function names(name: string, [whole, ...quotes]: string[]): boolean {
  const option = name.toLowerCase();
  for (let at = whole!.indexOf(option); at >= 0; at = whole!.indexOf(option, at + 1)) {
    if (!WORD.test(whole![at - 1] ?? '') && !WORD.test(whole![at + option.length] ?? '')) return true;
  }
  return quotes.some((quote) => option.includes(quote));
}
