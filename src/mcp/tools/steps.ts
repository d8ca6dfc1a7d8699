// The tools for the steps an agent takes besides clicking and typing: a key or chord, files for a
// file input, a drag from one element to another, a wait for a text, and what to do with dialogs.
// Each is a library method too: page.keyPress, locator.setInputFiles, page.dragAndDrop,
// page.waitForSelector('text=…'), page.on('dialog').

import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { actionOfId } from '../../act/elementId.js';
import { InvalidOptionError } from '../../errors.js';
import type { Page } from '../../driver/page.js';
import { failure, optionalString, text, withPageText, INCLUDE_PAGE_TEXT, type Tool } from './kit.js';

const REF = { type: 'string', description: 'An element id from page_text or find of this tab, e.g. "12" or "2-7".' } as const;

/** The element behind an id the agent read, as a locator; using it is ElementIdNotFoundError when that element is gone. */
function locatorOf(page: Page, ref: string) {
  return page.locator(actionOfId({ elementId: ref }).selector);
}

/** The files an upload may send: inside the directory the server was started with, after links are followed. */
async function uploadable(paths: unknown, root: string | undefined): Promise<string[]> {
  if (!root) throw new InvalidOptionError('upload is off: start tendril mcp with --upload-dir DIR, and only files inside DIR can be sent.');
  if (!Array.isArray(paths) || !paths.length || !paths.every((each) => typeof each === 'string' && each.trim())) {
    throw new InvalidOptionError('upload needs `paths`: a list of files inside the upload directory.');
  }
  const base = await realpath(root);
  return Promise.all(
    paths.map(async (given: string) => {
      const full = await realpath(path.resolve(base, given)).catch(() => {
        throw new InvalidOptionError(`upload: ${JSON.stringify(given)} is not a file in the upload directory.`);
      });
      if (full !== base && !full.startsWith(base + path.sep))
        throw new InvalidOptionError(`upload: ${JSON.stringify(given)} is outside the upload directory; only files inside it can be sent.`);
      return full;
    }),
  );
}

export const STEP_TOOLS: Tool[] = [
  {
    name: 'press',
    title: 'Press a key',
    description:
      'Press a key or a chord ("Enter", "Escape", "Tab", "Control+A", "Shift+ArrowDown") in the current tab: into the element `ref` (focused first), or into whatever has the focus.',
    inputSchema: {
      type: 'object',
      properties: { key: { type: 'string', description: 'The key or chord.' }, ref: REF, include_page_text: INCLUDE_PAGE_TEXT },
      required: ['key'],
    },
    readOnly: false,
    async run(args, session) {
      const page = await session.page();
      const key = String(args.key);
      const ref = optionalString(args.ref);
      if (ref) await (await session.sdk()).act({ elementId: ref, method: 'press', arguments: [key] }, { page });
      else await page.keyPress(key);
      return withPageText(args, session, page, `Pressed ${key}${ref ? ` in [${ref}]` : ''}.`);
    },
  },
  {
    name: 'upload',
    title: 'Choose files for a file input',
    description:
      "Put files into the file input `ref` (<input type=file>), as a user choosing them would. Only files inside the server's upload directory (--upload-dir) can be sent.",
    inputSchema: {
      type: 'object',
      properties: {
        ref: REF,
        paths: { type: 'array', items: { type: 'string' }, description: 'Files, relative to the upload directory.' },
        include_page_text: INCLUDE_PAGE_TEXT,
      },
      required: ['ref', 'paths'],
    },
    readOnly: false,
    async run(args, session, call) {
      const files = await uploadable(args.paths, call.uploadDir);
      const page = await session.page();
      await locatorOf(page, String(args.ref)).setInputFiles(files);
      return withPageText(
        args,
        session,
        page,
        `Chose ${files.length} file${files.length === 1 ? '' : 's'} for [${String(args.ref)}]: ${files.map((each) => path.basename(each)).join(', ')}.`,
      );
    },
  },
  {
    name: 'drag',
    title: 'Drag one element onto another',
    description: 'Drag the element `from` (an id) and drop it on the element `to` (an id), with real mouse events.',
    inputSchema: { type: 'object', properties: { from: REF, to: REF, include_page_text: INCLUDE_PAGE_TEXT }, required: ['from', 'to'] },
    readOnly: false,
    async run(args, session) {
      const page = await session.page();
      const [from, to] = [locatorOf(page, String(args.from)), locatorOf(page, String(args.to))];
      const [a, b] = [await from.centroid(), await to.centroid()];
      await page.dragAndDrop(a.x, a.y, b.x, b.y, { steps: 5 });
      return withPageText(args, session, page, `Dragged [${String(args.from)}] onto [${String(args.to)}].`);
    },
  },
  {
    name: 'wait_for',
    title: 'Wait for a text',
    description:
      'Wait until `text` shows on the current tab (or, with `gone: true`, until it no longer does), up to `timeout_ms` (default 10000).',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Words the page shows, e.g. "Order placed".' },
        gone: { type: 'boolean', description: 'Wait for the text to go away instead.' },
        timeout_ms: { type: 'integer', minimum: 1, maximum: 120000 },
        include_page_text: INCLUDE_PAGE_TEXT,
      },
      required: ['text'],
    },
    readOnly: true,
    async run(args, session) {
      const page = await session.page();
      const wanted = String(args.text);
      if (!wanted.trim()) return failure('InvalidOptionError', 'wait_for needs a `text` to wait for.');
      const gone = args.gone === true;
      await page.waitForSelector(`text=${wanted}`, {
        state: gone ? 'hidden' : 'visible',
        timeout: typeof args.timeout_ms === 'number' ? args.timeout_ms : 10_000,
      });
      return withPageText(args, session, page, gone ? `${JSON.stringify(wanted)} is gone.` : `${JSON.stringify(wanted)} shows.`);
    },
  },
  {
    name: 'dialogs',
    title: 'Choose what happens to dialogs',
    description:
      'How this client\'s tabs answer JavaScript dialogs (alert, confirm, prompt, beforeunload) from now on: "accept" (with `prompt_text` ' +
      'for a prompt) or "dismiss". Until set, alerts and beforeunload are accepted and confirm and prompt dismissed. Nothing ever waits on a dialog.',
    inputSchema: {
      type: 'object',
      properties: {
        policy: { type: 'string', enum: ['accept', 'dismiss'] },
        prompt_text: { type: 'string', description: 'What a prompt is answered with, when accepting.' },
      },
      required: ['policy'],
    },
    readOnly: false,
    async run(args, session) {
      const promptText = optionalString(args.prompt_text);
      await session.setDialogPolicy(args.policy === 'accept' ? { accept: true, promptText } : { accept: false });
      return text(
        `Dialogs are ${args.policy === 'accept' ? `accepted${promptText ? ` (a prompt with ${JSON.stringify(promptText)})` : ''}` : 'dismissed'} from now on.`,
      );
    },
  },
];
