// The model and browser settings the commands share (extract, mcp, worker): read from their flags
// and the variables those default to, and the model checked by the library's one rule
// (modelSettingsError), in the command line's words.

import { splitArgs } from '../hosted/server/config.js';
import { parseModelConfiguration } from '../llm/config.js';
import { COMMAND_LINE_WORDING } from '../llm/modelWording.js';
import { languageModel, modelSettingsError } from '../llm/providers.js';
import type { LocalBrowserLaunchOptions, ModelConfiguration } from '../types.js';

export const DEFAULT_MODEL = 'openai/gpt-4.1-mini';

export type CommandLineModel = Exclude<ModelConfiguration, string>;

/** --model, --base-url and the variables they default to (MODEL_NAME, MODEL_API_KEY, MODEL_BASE_URL). */
export function commandLineModel(values: { model?: string; 'base-url'?: string }, env: NodeJS.ProcessEnv = process.env): CommandLineModel {
  const model: CommandLineModel = { modelName: values.model ?? (env.MODEL_NAME?.trim() || DEFAULT_MODEL) };
  const apiKey = env.MODEL_API_KEY?.trim();
  const baseURL = values['base-url'] ?? (env.MODEL_BASE_URL?.trim() || undefined);
  if (apiKey) model.apiKey = apiKey;
  if (baseURL) model.baseURL = baseURL;
  return model;
}

/** Whether the command line names a model at all (a flag or a variable), rather than leaving the default. */
export function modelGiven(values: { model?: string; 'base-url'?: string }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(values.model ?? values['base-url'] ?? (env.MODEL_NAME?.trim() || env.MODEL_API_KEY?.trim() || env.MODEL_BASE_URL?.trim()));
}

/**
 * The model checked before any browser starts: what the user must still set (a key, a server's
 * address) in flags and variables; with `local`, also what only building it shows (an unknown
 * provider, its package missing). A hosted service builds the model itself, with the key sent along.
 */
export async function checkCommandLineModel(model: CommandLineModel, local: boolean): Promise<void> {
  const spec = parseModelConfiguration(model)!;
  const missing = modelSettingsError(spec, COMMAND_LINE_WORDING);
  if (missing) throw missing;
  if (local) await languageModel(spec);
}

/** --cdp-url, else --chrome-args (default CHROME_ARGS) for a launched Chromium; as the hosted server splits CHROME_ARGS. */
export function browserLaunchOptions(
  values: { 'cdp-url'?: string; 'chrome-args'?: string },
  env: NodeJS.ProcessEnv = process.env,
): LocalBrowserLaunchOptions | undefined {
  if (values['cdp-url']) return { cdpUrl: values['cdp-url'] };
  const args = splitArgs(values['chrome-args'] ?? env.CHROME_ARGS ?? '');
  return args.length ? { args } : undefined;
}
