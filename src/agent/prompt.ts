// What the agent's model is told: the loop's system prompt (the task, the starting page, how Tendril's
// tools fit together, the placeholders it may write) and the closing request for a verdict. Our own
// wording; Stagehand's prompts were read for what they cover, not copied.

import type { Variables } from './types.js';

/** One line per tool, for the prompt; the tools' own descriptions say the details. */
const TOOL_LINES: Record<string, string> = {
  ariaTree: 'ariaTree: read the whole page as text, one line per element, including what is scrolled out of view',
  act: 'act: one action on one element ("click the Sign in button", "type Ada into the Name field")',
  fillForm: 'fillForm: fill several fields in one go',
  extract: 'extract: pull structured data out of the page, when the task asks for data',
  goto: 'goto: open a URL',
  navback: 'navback: go back one page in the history',
  scroll: 'scroll: move the page up or down',
  keys: 'keys: press a key or shortcut, or type text where the focus is',
  screenshot: 'screenshot: look at the visible part of the page as an image',
  wait: 'wait: let the page catch up for a given time',
  think: 'think: plan or reason without touching the page',
  click: 'click: click at a point of the screenshot',
  type: 'type: click a field at a point of the screenshot and type into it',
  dragAndDrop: 'dragAndDrop: drag from one point of the screenshot to another',
  clickAndHold: 'clickAndHold: press and hold at a point of the screenshot',
  fillFormVision: 'fillFormVision: type into several fields, each at its point of the screenshot',
};

/** How to work, by mode: the DOM mode acts on the page text, the hybrid mode mostly on the screenshot. */
const METHOD: Record<'dom' | 'hybrid', string[]> = {
  dom: [
    '- Read the page (ariaTree) before acting on it, and again after anything that changes it.',
    '- Act on elements you saw in the page text; you rarely need to scroll to reach them.',
    '- Type into a field with act ("type ... into the ... field") rather than clicking it first.',
  ],
  hybrid: [
    '- Look at the page (screenshot) before acting on it; each click, type, drag or scroll answers with a new screenshot.',
    '- For what you can see, use click and type at its point in the screenshot; type into a field with type rather than click first.',
    '- Read the page text (ariaTree) for what the screenshot does not show, and use act for elements that are only there.',
  ],
};

export interface PromptInput {
  instruction: string;
  url: string;
  tools: string[];
  mode: 'dom' | 'hybrid';
  customInstructions?: string;
  variables?: Variables;
}

/** Names and descriptions of the placeholders, never their values. */
export function variableLines(variables: Variables | undefined): string[] {
  return Object.entries(variables ?? {}).map(([name, value]) => {
    const description = typeof value === 'object' && value !== null && value.description ? `: ${value.description}` : '';
    return `- %${name}%${description}`;
  });
}

export function agentSystemPrompt(input: PromptInput): string {
  const known = input.tools.filter((name) => TOOL_LINES[name]).map((name) => `- ${TOOL_LINES[name]}`);
  const extra = input.tools.filter((name) => !TOOL_LINES[name]);
  const parts = [
    'You operate a web browser to carry out a task for a user, one tool call at a time.',
    `Task: ${input.instruction}`,
    `The browser starts at ${input.url || 'a blank page'}. Today is ${new Date().toISOString().slice(0, 10)}.`,
    ['Tools:', ...known, ...(extra.length ? [`- also: ${extra.join(', ')} (see their descriptions)`] : [])].join('\n'),
    [
      'How to work:',
      ...METHOD[input.mode],
      '- Keep each act to one element and one action, and check its result before the next step.',
      '- Use extract only when the task wants data back; for finding your way, the page text is enough.',
      '- If you know the address of what you need, go there with goto.',
      '- A tool that fails tells you why: try another way instead of repeating the same call.',
      '- Stop as soon as the task is done; do not go looking for more.',
    ].join('\n'),
  ];
  const variables = variableLines(input.variables);
  if (variables.length) {
    parts.push(
      [
        'Values you must not see are given as placeholders. Write the placeholder, with its percent signs, wherever the value',
        `belongs in ${input.mode === 'hybrid' ? 'act, type, fillFormVision' : 'act, fillForm'} or keys ("type %password% into the password field"); it is filled in when the action runs:`,
        ...variables,
      ].join('\n'),
    );
  }
  if (input.customInstructions?.trim()) parts.push(`The user adds these instructions:\n${input.customInstructions.trim()}`);
  parts.push('When you are done, reply without calling a tool, and say what you found that the task asked for.');
  return parts.join('\n\n');
}

/** The closing request: the model reviews the run and calls `done` with its verdict. */
export function verdictPrompt(instruction: string, outputFields: string[] | undefined): string {
  return [
    `You have been working in a web browser on this task: ${instruction}`,
    'Look back over the conversation: what was done, and what the pages showed.',
    'Call the "done" tool with a short summary of the outcome (reasoning) and whether the task was fully carried out (taskComplete).',
    ...(outputFields?.length ? [`Also fill in "output" with the data the user asked for: ${outputFields.join(', ')}.`] : []),
  ].join('\n');
}
