// The words and schemas of act() and observe(). Element ids are the snapshot's `[N]` and `[F-N]`;
// the model answers with them and we turn them into XPaths, so it never has to write a selector.

import { CUT_NOTE } from './options.js';
import { METHOD_HELP, METHODS } from './perform.js';

const TREE = 'The page is an accessibility tree: one element per line, "[id] role: name", indented under its parent.';
const PLACEHOLDERS = 'Words like %name% are placeholders for values the program fills in later: copy them into the arguments unchanged.';

export const ACT_SYSTEM = [
  'You operate a web page for a program.',
  TREE,
  'Choose the one element and the method that carry out the instruction. Methods and their arguments:',
  METHOD_HELP,
  'If no element on the page fits, answer with elementId null.',
  PLACEHOLDERS,
].join('\n');

export const OBSERVE_SYSTEM = [
  'You find the elements of a web page a program can act on.',
  TREE,
  'List the elements that match the instruction, most relevant first, each with the method and arguments to act on it. Methods:',
  METHOD_HELP,
  'List none if nothing matches.',
  PLACEHOLDERS,
].join('\n');

const method = { type: 'string', enum: [...METHODS] };
const args = { type: 'array', items: { type: 'string' } };

export const ACT_SCHEMA = {
  type: 'object',
  properties: {
    elementId: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The id in brackets, such as "12" or "1-12".' },
    method,
    arguments: args,
    description: { type: 'string', description: 'The action in a few words, such as "click the Sign in button".' },
  },
  required: ['elementId', 'method', 'arguments', 'description'],
  additionalProperties: false,
};

export const OBSERVE_SCHEMA = {
  type: 'object',
  properties: {
    elements: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          elementId: { type: 'string', description: 'The id in brackets, such as "12" or "1-12".' },
          description: { type: 'string', description: 'The element and what acting on it does.' },
          method,
          arguments: args,
        },
        required: ['elementId', 'description', 'method', 'arguments'],
        additionalProperties: false,
      },
    },
  },
  required: ['elements'],
  additionalProperties: false,
};

/** `cut`: a long option list in the text was cut short (see options.ts), which the model is told. */
export function actUser(instruction: string, url: string, text: string, retry?: string, part?: string, cut?: boolean): string {
  return (
    `Instruction: ${instruction}\n` +
    (retry ? `${retry}\n` : '') +
    (cut ? `${CUT_NOTE}\n` : '') +
    `\nThe page at ${url}${part ? ` (${part})` : ''}:\n${text}`
  );
}

export function observeUser(instruction: string | undefined, url: string, text: string, part?: string, cut?: boolean): string {
  const what = instruction ?? 'Every element a user can act on: links, buttons, fields, controls.';
  return `Instruction: ${what}\n${cut ? `${CUT_NOTE}\n` : ''}\nThe page at ${url}${part ? ` (${part})` : ''}:\n${text}`;
}
