// The hybrid mode's tools: the model looks at screenshots and acts at viewport coordinates (click,
// type, dragAndDrop, clickAndHold, fillFormVision, scroll at a point), with the DOM mode's tools
// beside them for what the picture does not show. Each action answers with a fresh screenshot, so
// the model sees what its action did. Input goes through the page's own mouse and keyboard methods.

import { waitForSettled } from '../driver/settle.js';
import { fillVariables, textOutput, toBase64, toolKit, type Result, type ToolDef, type ToolSetup } from './tools.js';

export const HYBRID_TOOLS = ['click', 'type', 'dragAndDrop', 'clickAndHold', 'fillFormVision'] as const;

/** Models for which Stagehand picks the hybrid mode when none is named. */
const HYBRID_MODELS = ['gemini-3', 'claude', 'gpt-5.4', 'gpt-5.5', 'gpt-5.6'];

export function defaultMode(modelName: string | undefined): 'dom' | 'hybrid' {
  return modelName && HYBRID_MODELS.some((pattern) => modelName.includes(pattern)) ? 'hybrid' : 'dom';
}

/** At most this long a page gets to settle after an action (DOM and network quiet) before it is photographed. */
const SETTLE_MS = 1000;

export interface VisionSetup extends ToolSetup {
  /** The agent model's provider: Google's models answer in a 0-1000 grid, not in pixels. */
  provider: string;
}

const point = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: 'The point [x, y] in the screenshot.' };

/** With the DOM mode's tools, `dom`: every tool of the hybrid mode (fillForm gives way to fillFormVision). */
export function hybridTools(setup: VisionSetup, dom: Record<string, ToolDef>): Record<string, ToolDef> {
  const { host, variables, placeholders, shape, object, page, log, tool, record } = toolKit(setup);
  const touch = host.usesTouch;
  // With useTouch, a finger: mobile layouts often listen for touch and pointer events only.
  const press = async (x: number, y: number) => {
    const current = await page();
    await (host.usesTouch ? current.tap(x, y) : current.click(x, y));
    return current;
  };
  const google = setup.provider.toLowerCase().includes('google');
  const where = async (x: number, y: number): Promise<{ x: number; y: number }> => {
    if (!google) return { x, y };
    const size = await (await page()).evaluate(() => ({ width: window.innerWidth, height: window.innerHeight }));
    const scale = (value: number, extent: number) => Math.floor((Math.min(999, Math.max(0, value)) / 1000) * extent);
    return { x: scale(x, size.width), y: scale(y, size.height) };
  };
  /** The page after an action, as the model's next look at it; a page that cannot be shot (navigating) gives none. */
  const after = async (): Promise<string | undefined> => {
    const current = await page();
    await waitForSettled(current, SETTLE_MS);
    return current.screenshot({ fullPage: false }).then(toBase64, () => undefined);
  };
  const withPicture: ToolDef['toModelOutput'] = ({ output }) => {
    const { screenshotBase64, ...rest } = output;
    const content: unknown[] = [{ type: 'text', text: JSON.stringify(rest) }];
    if (typeof screenshotBase64 === 'string') content.push({ type: 'media', mediaType: 'image/png', data: screenshotBase64 });
    return output.success === false ? textOutput(JSON.stringify(output)) : { type: 'content', value: content };
  };
  const describe = { type: 'string', description: 'The element, briefly, by its kind and how it looks ("the blue Join now button").' };
  const tools: Record<string, ToolDef> = { ...dom };
  delete tools.fillForm;

  tools.click = tool(
    'click',
    'Clicks at a point of the screenshot. The surest way to press what you can see; for what is only in the page text, use act.',
    object({ describe, coordinates: point }, ['describe', 'coordinates']),
    async ({ describe: what, coordinates }: { describe: string; coordinates: number[] }) => {
      log('click', { describe: what });
      const at = await where(coordinates[0]!, coordinates[1]!);
      await press(at.x, at.y);
      record({ type: 'click', ...at, touch });
      return { success: true, describe: what, coordinates: [at.x, at.y], screenshotBase64: await after() };
    },
    withPicture,
  );
  tools.type = tool(
    'type',
    'Clicks a field at a point of the screenshot, then types text into it.',
    object({ describe, text: { type: 'string', description: `The text to type.${placeholders}` }, coordinates: point }, [
      'describe',
      'text',
      'coordinates',
    ]),
    async ({ describe: what, text, coordinates }: { describe: string; text: string; coordinates: number[] }) => {
      log('type', { describe: what, text });
      const at = await where(coordinates[0]!, coordinates[1]!);
      const current = await press(at.x, at.y);
      await current.type(fillVariables(text, variables));
      record({ type: 'typeAt', ...at, text, touch });
      // The text as the model wrote it: placeholders stay placeholders.
      return { success: true, describe: what, text, screenshotBase64: await after() };
    },
    withPicture,
  );
  tools.dragAndDrop = tool(
    'dragAndDrop',
    'Presses the mouse at one point of the screenshot, moves it to another, and lets go there.',
    object({ describe, startCoordinates: point, endCoordinates: point }, ['describe', 'startCoordinates', 'endCoordinates']),
    async ({
      describe: what,
      startCoordinates,
      endCoordinates,
    }: {
      describe: string;
      startCoordinates: number[];
      endCoordinates: number[];
    }) => {
      log('dragAndDrop', { describe: what });
      const from = await where(startCoordinates[0]!, startCoordinates[1]!);
      const to = await where(endCoordinates[0]!, endCoordinates[1]!);
      await (await page()).dragAndDrop(from.x, from.y, to.x, to.y, { steps: 10 });
      record({ type: 'drag', from: [from.x, from.y], to: [to.x, to.y], delay: 0 });
      return { success: true, describe: what, screenshotBase64: await after() };
    },
    withPicture,
  );
  tools.clickAndHold = tool(
    'clickAndHold',
    'Presses the mouse at a point of the screenshot and holds it for a while (press-and-hold buttons, long presses).',
    object({ describe, duration: { type: 'number', minimum: 0, description: 'How long to hold, in ms.' }, coordinates: point }, [
      'describe',
      'duration',
      'coordinates',
    ]),
    async ({ describe: what, duration, coordinates }: { describe: string; duration: number; coordinates: number[] }) => {
      log('clickAndHold', { describe: what, duration });
      const at = await where(coordinates[0]!, coordinates[1]!);
      const delay = Math.min(Math.max(0, duration), setup.toolTimeoutMs);
      await (await page()).dragAndDrop(at.x, at.y, at.x, at.y, { delay });
      record({ type: 'drag', from: [at.x, at.y], to: [at.x, at.y], delay });
      return { success: true, describe: what, screenshotBase64: await after() };
    },
    withPicture,
  );
  tools.fillFormVision = tool(
    'fillFormVision',
    'Fills several fields you can see: for each, its point in the screenshot and the text to type there.',
    object(
      {
        fields: {
          type: 'array',
          minItems: 1,
          items: shape(
            {
              action: { type: 'string', description: 'What this entry does, e.g. "type the email into the Email field".' },
              value: { type: 'string', description: `The text to type.${placeholders}` },
              coordinates: shape({ x: { type: 'number' }, y: { type: 'number' } }, ['x', 'y']),
            },
            ['action', 'value', 'coordinates'],
          ),
        },
      },
      ['fields'],
    ),
    async ({ fields }: { fields: Array<{ action: string; value: string; coordinates: { x: number; y: number } }> }) => {
      log(
        'fillFormVision',
        fields.map(({ action, value }) => ({ action, value })),
      );
      const filled: Result[] = [];
      for (const field of fields) {
        const at = await where(field.coordinates.x, field.coordinates.y);
        const current = await press(at.x, at.y);
        await current.type(fillVariables(field.value, variables));
        record({ type: 'typeAt', ...at, text: field.value, touch });
        filled.push({ action: field.action, value: field.value, coordinates: at });
      }
      return { success: true, playwrightArguments: filled, screenshotBase64: await after() };
    },
    withPicture,
  );
  tools.scroll = tool(
    'scroll',
    "Scrolls up or down by a share of the window's height (80% unless told). Give a point only to scroll inside a box that scrolls on its own (a list, a dialog).",
    object(
      { direction: { type: 'string', enum: ['up', 'down'] }, percentage: { type: 'number', minimum: 1, maximum: 200 }, coordinates: point },
      ['direction'],
    ),
    async ({ direction, percentage = 80, coordinates }: { direction: 'up' | 'down'; percentage?: number; coordinates?: number[] }) => {
      log('scroll', { direction, percentage, coordinates });
      const current = await page();
      const size = await current.evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }));
      const at = coordinates ? await where(coordinates[0]!, coordinates[1]!) : { x: Math.floor(size.w / 2), y: Math.floor(size.h / 2) };
      const pixels = Math.round((size.h * percentage) / 100);
      await current.scroll(at.x, at.y, 0, direction === 'up' ? -pixels : pixels);
      record({ type: 'scroll', ...at, deltaY: direction === 'up' ? -pixels : pixels });
      return {
        success: true,
        message: `Scrolled ${direction} by ${percentage}% of the window at (${at.x}, ${at.y})`,
        scrolledPixels: pixels,
        screenshotBase64: await after(),
      };
    },
    withPicture,
  );
  const wait = dom.wait!;
  tools.wait = {
    ...wait,
    execute: async (input, options) => {
      const waited = await wait.execute(input, options);
      return waited.success === false ? waited : { ...waited, screenshotBase64: await after() };
    },
    toModelOutput: withPicture,
  };
  return tools;
}
