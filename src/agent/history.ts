// What each step sends again of the conversation: every message, but only the two latest pictures and
// the latest page text in full. Older ones describe pages that have changed since, and would make
// every request of a long run larger than the last. Copies are made; the run's messages stay whole.

import type { AgentMessage } from './types.js';

/** Screenshots kept in full, counted from the end. */
const PICTURES_KEPT = 2;

interface ToolResultPart {
  type: string;
  toolName?: string;
  output?: { type: string; value?: unknown };
}

const partsOf = (message: AgentMessage): ToolResultPart[] =>
  message.role === 'tool' && Array.isArray(message.content) ? (message.content as ToolResultPart[]) : [];
const hasPicture = (part: ToolResultPart) =>
  part.output?.type === 'content' &&
  Array.isArray(part.output.value) &&
  part.output.value.some((item: { type?: string }) => item?.type === 'media');
const isPageText = (part: ToolResultPart) => part.toolName === 'ariaTree' && part.output?.type === 'content';

export function trimHistory(messages: AgentMessage[]): AgentMessage[] {
  const pictures: number[] = [];
  const texts: number[] = [];
  messages.forEach((message, index) => {
    if (partsOf(message).some(hasPicture)) pictures.push(index);
    if (partsOf(message).some(isPageText)) texts.push(index);
  });
  const oldPictures = new Set(pictures.slice(0, Math.max(0, pictures.length - PICTURES_KEPT)));
  const oldTexts = new Set(texts.slice(0, -1));
  if (oldPictures.size === 0 && oldTexts.size === 0) return messages;
  return messages.map((message, index) => {
    if (!oldPictures.has(index) && !oldTexts.has(index)) return message;
    const content = partsOf(message).map((part) => {
      if (oldTexts.has(index) && isPageText(part)) {
        return {
          ...part,
          output: {
            type: 'content',
            value: [{ type: 'text', text: '(The page text read here is left out: a later read shows the page as it is now.)' }],
          },
        };
      }
      if (oldPictures.has(index) && hasPicture(part)) {
        const kept = (part.output!.value as Array<{ type?: string }>).filter((item) => item?.type !== 'media');
        return { ...part, output: { type: 'content', value: [...kept, { type: 'text', text: '(An earlier screenshot, left out.)' }] } };
      }
      return part;
    });
    return { ...message, content };
  });
}
