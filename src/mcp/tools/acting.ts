// The tools that act on a page: act (by id, by instruction, or replaying an observed action) and
// observe.

import type { ActionInput, ElementAction } from '../../types.js';
import { failure, INCLUDE_PAGE_TEXT, METHODS, optionalString, SELECTOR_HELP, text, withPageText, type Tool } from './kit.js';

export const ACTING_TOOLS: Tool[] = [
  {
    name: 'act',
    title: 'Do one action',
    description:
      'Do one thing on the current tab with real mouse and keyboard input. Give one of: `ref`, the id of an element as page_text or ' +
      'find wrote it ("12", "2-7"), with `method` and `arguments` (no model asked: the fastest way); `instruction` in plain words ' +
      '("click Sign in"; a model picks the element); or `action`, one item returned by observe, replayed exactly without a model. ' +
      'Returns what was done and the action as JSON, which act takes again to repeat it.',
    inputSchema: {
      type: 'object',
      properties: {
        ref: {
          type: 'string',
          description:
            'An element id from page_text or find of this tab, e.g. "12" or "2-7". It names its element for as long as that element is on the page, ' +
            'across later reads; after a navigation, read again.',
        },
        method: { type: 'string', enum: METHODS, description: 'With `ref`: what to do. Default click.' },
        arguments: {
          type: 'array',
          items: { type: 'string' },
          description: 'With `ref`: the text to fill or type, the key to press, the option to pick.',
        },
        instruction: {
          type: 'string',
          description: 'The action in plain words, when no id fits. Give one of `ref`, `instruction` or `action`.',
        },
        action: {
          type: 'object',
          description: 'An action from observe (or from an earlier act). Give this or `instruction`.',
          properties: {
            selector: { type: 'string', description: SELECTOR_HELP },
            method: { type: 'string', enum: METHODS, description: 'Default click.' },
            arguments: {
              type: 'array',
              items: { type: 'string' },
              description: 'The text to fill or type, the key to press, the option to pick.',
            },
            description: { type: 'string' },
          },
          required: ['selector'],
        },
        variables: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Values for %name% placeholders in the arguments (passwords and such); they are never sent to the model.',
        },
        include_page_text: INCLUDE_PAGE_TEXT,
      },
    },
    readOnly: false,
    async run(args, session, call) {
      const sdk = await session.sdk();
      const page = await session.page();
      const instruction = optionalString(args.instruction);
      const ref = optionalString(args.ref);
      const action: ActionInput | ElementAction | undefined = ref
        ? { elementId: ref, method: optionalString(args.method), arguments: args.arguments as string[] | undefined }
        : (args.action as ActionInput | undefined);
      if ([instruction, args.action, ref].filter((each) => each !== undefined).length !== 1) {
        return failure('InvalidOptionError', 'Give act one of `ref` (an id from page_text), `instruction` or `action`.');
      }
      if (!ref && (args.method !== undefined || args.arguments !== undefined)) {
        return failure('InvalidOptionError', '`method` and `arguments` go with `ref`; an `action` carries its own.');
      }
      const variables = args.variables as Record<string, string> | undefined;
      // A ref or an action runs without a model, under the browser's deadline (only an action's
      // self-healing, when its element is gone, would ask the server's model).
      const model = instruction === undefined ? {} : await call.modelOptions();
      const result = await sdk.act(instruction ?? action!, { page, variables, ...model });
      // An id is the agent's own handle already: say what was done to it, not the element's XPath
      // twice. An instruction's action comes back whole, for act to replay without the model.
      const done = ref
        ? result.success
          ? `Done: ${result.actions[0]?.method ?? 'click'} on [${ref.replace(/^\[|\]$/g, '')}].`
          : result.message
        : `${result.message}${result.actions[0] ? `\nAction: ${JSON.stringify(result.actions[0])}` : ''}`;
      if (!result.success) return failure('ActionFailedError', done);
      return withPageText(args, session, await session.page(), done);
    },
  },
  {
    name: 'observe',
    title: 'List possible actions',
    description:
      'List what can be done on the current tab, or only what fits `instruction` ("the search box", "links to products"), each as ' +
      '{selector, description, method, arguments}. Pass one item to act as `action` to perform it without another model call.',
    inputSchema: {
      type: 'object',
      properties: { instruction: { type: 'string', description: 'What to look for. Default: the main actions of the page.' } },
    },
    readOnly: true,
    async run(args, session, call) {
      const sdk = await session.sdk();
      const page = await session.page();
      const actions = await sdk.observe(optionalString(args.instruction), { page, ...(await call.modelOptions()) });
      return text(actions.length ? JSON.stringify(actions, null, 2) : 'Nothing on the page fits.');
    },
  },
];
