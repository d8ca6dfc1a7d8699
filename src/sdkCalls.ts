// How the Sdk's operations describe themselves to the instrumentation seam (util/instrumentation.ts):
// a title a person reads in a trace ("extract: the product's price"), and the arguments.

import type { Context } from './driver/context.js';
import { Page } from './driver/page.js';
import type { CallDescription } from './util/instrumentation.js';

export type Operation = 'extract' | 'act' | 'observe';

/** The seam's description of `operation(...args)`: on the options' `page`, else the context's active one. */
export function describeOperation(
  operation: Operation,
  args: unknown[],
  options: unknown,
  sdk: { env: string; metrics: unknown; context: Context | undefined },
): CallDescription {
  const first = args[0];
  const { page, ...rest } = (typeof options === 'object' && options !== null ? options : {}) as { page?: unknown };
  const params: Record<string, unknown> = { options: rest };
  let what: string | undefined;
  if (operation === 'act') {
    what = typeof first === 'string' ? first : (first as { description?: string } | undefined)?.description;
    params[typeof first === 'string' ? 'instruction' : 'action'] = first;
  } else if (typeof first === 'string') {
    what = first;
    params.instruction = first;
    if (operation === 'extract' && typeof args[1] === 'object' && args[1] !== options) params.schema = 'a zod schema';
  } else if (operation === 'extract') {
    what = 'page text';
  }
  return {
    api: `Sdk.${operation}`,
    title: what ? `${operation}: ${what}` : operation,
    params,
    page: page instanceof Page ? page : sdk.context?.activePage(),
    details: { environment: sdk.env, metrics: sdk.metrics },
  };
}
