// What the fake model answers in the function measurement where a value made up from the schema will
// not do: which element act() clicks, and what extract() reads.
import type { FakeRequest } from '../../../../test/support/fake-model.js';
import { sampleFor } from '../../core/model.js';

/** The button act() is asked to click, by its accessible name (its line in both libraries' page text). */
export const BUTTON = 'Add my vote';

/** What the function is asked in one run; new every run. */
export interface Instructions {
  readonly act: string;
  readonly extract: string;
}

/**
 * The fake model's answers where a value made up from the schema will not do. act (either library's
 * schema has an `elementId`): the vote button's id, read from the page text in the request, and
 * "click". extract (a `value` property, the wrapper both put around z.string()): the counter as the
 * page text in the request shows it, so the function's data says whether act() really clicked.
 * Anything else (Stagehand's metadata request) is left to `sampleFor`.
 */
export function answer(request: FakeRequest, current: Instructions | null): unknown {
  const schema = request.schema as { properties?: Record<string, unknown> } | undefined;
  if (!current || !schema) return undefined;
  if (JSON.stringify(schema).includes('"elementId"') && request.prompt.includes(current.act)) {
    const id = new RegExp(String.raw`\[([^\]\s]+)\][^\n]*${BUTTON}`).exec(request.prompt)?.[1];
    if (!id) throw new Error(`fake model (bench): no "${BUTTON}" button in the page text of the act request`);
    return chooseElement(sampleFor(schema as Parameters<typeof sampleFor>[0]), id);
  }
  if (schema.properties?.value !== undefined && request.prompt.includes(current.extract)) {
    const count = /Votes so far:[\s\S]{0,200}?(?<![\w-])(\d+)(?![\w-])/.exec(request.prompt)?.[1];
    return { value: count === undefined ? 'no vote counter in the page text' : `votes: ${count}` };
  }
  return undefined;
}

/** `sample` with every object that names an element (Tendril's answer itself, Stagehand's `action`) set to `id`. */
function chooseElement(sample: unknown, id: string): unknown {
  if (Array.isArray(sample)) return sample.map((item) => chooseElement(item, id));
  if (!sample || typeof sample !== 'object') return sample;
  if ('elementId' in sample) return { ...sample, elementId: id, method: 'click', arguments: [], description: `the "${BUTTON}" button` };
  return Object.fromEntries(Object.entries(sample).map(([key, value]) => [key, chooseElement(value, id)]));
}
