// The checks of the Sdk's options and of each call's options: bad input fails here, with a typed
// error naming the fix, before anything is sent to the browser or a model.
import { InvalidOptionError, MissingLLMConfigurationError } from './errors.js';
import { parseModelConfiguration, type ModelServer, type ModelSpec } from './llm/config.js';
import { isZodSchema, type ZodLike } from './extract/schema.js';
import type { ActOptions, ExtractOptions, ModelConfiguration, PageTextView, SdkOptions } from './types.js';
import { envVar } from './util/env.js';

/** SdkOptions.modelServer, checked, with its key (HOSTED_API_KEY by default); undefined when not given. */
export function checkModelServer(options: SdkOptions, modelsOnService: boolean): ModelServer | undefined {
  const given = options.modelServer;
  if (given === undefined) return undefined;
  const url = isPlainObject(given) && typeof given.url === 'string' && URL.canParse(given.url) ? given.url : '';
  const apiKey = isPlainObject(given) ? (given.apiKey ?? envVar('HOSTED_API_KEY')) : undefined;
  if (modelsOnService || !/^https?:/.test(url) || typeof apiKey !== 'string' || !apiKey) {
    throw new InvalidOptionError(
      "`modelServer` must be { url, apiKey }: a Tendril hosted server's http(s) URL and one of its HOSTED_API_KEYS (default: " +
        `HOSTED_API_KEY${apiKey ? '' : ', not set'}); not with env "HOSTED", whose models run on the server.`,
    );
  }
  return { url, apiKey };
}

/** systemPrompt, selfHeal and domSettleTimeout: what act(), observe() and the model requests take from the Sdk. */
export function checkBehaviourOptions({ systemPrompt, selfHeal, domSettleTimeout }: SdkOptions): void {
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string')
    throw new InvalidOptionError('`systemPrompt` must be a string of instructions for the model.');
  if (selfHeal !== undefined && typeof selfHeal !== 'boolean') throw new InvalidOptionError('`selfHeal` must be true or false.');
  if (
    domSettleTimeout !== undefined &&
    !(typeof domSettleTimeout === 'number' && domSettleTimeout >= 0 && Number.isFinite(domSettleTimeout))
  ) {
    throw new InvalidOptionError(`\`domSettleTimeout\` must be a number of milliseconds (0 or more), not ${String(domSettleTimeout)}.`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkActOptions(options: unknown): ActOptions {
  const checked = checkExtractOptions(options) as ActOptions;
  const variables = checked.variables;
  if (variables !== undefined) {
    const ok =
      typeof variables === 'object' &&
      variables !== null &&
      !Array.isArray(variables) &&
      Object.values(variables).every((value) => typeof value === 'string');
    if (!ok) throw new InvalidOptionError('`variables` must map names to strings: { password: "..." } fills %password%.');
  }
  return checked;
}

const VIEWS: readonly PageTextView[] = ['full', 'viewport', 'interactive', 'delta'];

export function checkExtractOptions(options: unknown): ExtractOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidOptionError(`extract() takes an options object, not ${Array.isArray(options) ? 'an array' : typeof options}.`);
  }
  const { timeout, selector, view } = options as ExtractOptions;
  if (view !== undefined && !VIEWS.includes(view)) {
    throw new InvalidOptionError(`\`view\` must be one of ${VIEWS.map((each) => `"${each}"`).join(', ')}, not ${JSON.stringify(view)}.`);
  }
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    throw new InvalidOptionError(`\`timeout\` must be a positive number of milliseconds, not ${String(timeout)}.`);
  }
  if (selector !== undefined && (typeof selector !== 'string' || !selector.trim())) {
    throw new InvalidOptionError('`selector` must be a non-empty XPath or CSS selector string.');
  }
  return options as ExtractOptions;
}

/** The model a call uses (its own, else the Sdk's), sent through the model server when there is one. */
export function modelSpec(
  model: ModelConfiguration | undefined,
  server: ModelServer | undefined,
  systemPrompt: string | undefined,
): ModelSpec | undefined {
  const spec = parseModelConfiguration(model);
  if (spec && server) spec.server = server;
  if (spec && systemPrompt) spec.systemPrompt = systemPrompt;
  return spec;
}

export function requireModel(spec: ModelSpec | undefined, what: string, hint: string): ModelSpec {
  if (spec) return spec;
  throw new MissingLLMConfigurationError(
    `${what} needs a model: pass \`model\` to the Sdk constructor or in the options, ` +
      `for example { modelName: "openai/gpt-4.1-mini", apiKey: process.env.OPENAI_API_KEY }.${hint}`,
  );
}

/**
 * extract()'s four forms told apart and checked: options only (the page text), or an instruction
 * with a zod schema, options, or both (a plain object that is not a schema is options).
 */
export function checkExtractArguments(
  first: unknown,
  second: unknown,
  third: unknown,
): { options: ExtractOptions } | { instruction: string; schema: ZodLike | undefined; options: ExtractOptions } {
  if (typeof first !== 'string') {
    if (second !== undefined)
      throw new InvalidOptionError('extract(options) takes one argument; pass an instruction first to use a schema.');
    return { options: checkExtractOptions(first) };
  }
  if (!first.trim()) throw new InvalidOptionError('The instruction of extract(instruction, ...) is empty; say what to extract.');
  const schemaGiven = second !== undefined && second !== null && isZodSchema(second);
  if (second !== undefined && second !== null && !schemaGiven && (third !== undefined || !isPlainObject(second))) {
    throw new InvalidOptionError('The second argument of extract(instruction, schema, options) must be a zod schema (zod 3.25+ or zod 4).');
  }
  const options = checkExtractOptions(schemaGiven ? third : (second ?? third));
  if (options.view !== undefined && options.view !== 'full') {
    throw new InvalidOptionError(
      `view "${options.view}" is for the page text (extract() or extract({ view })); extract(instruction) always reads the whole page.`,
    );
  }
  return { instruction: first, schema: schemaGiven ? (second as ZodLike) : undefined, options };
}
