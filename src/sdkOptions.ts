// The checks of the Sdk's options and of each call's options: bad input fails here, with a typed
// error naming the fix, before anything is sent to the browser or a model.
import { InvalidOptionError } from './errors.js';
import type { ModelServer } from './llm/config.js';
import type { ActOptions, ExtractOptions, PageTextView, SdkEnv, SdkOptions } from './types.js';
import { checkDomainPolicy, type CheckedPolicy } from './util/domainPolicy.js';
import { envVar } from './util/env.js';

/**
 * Options that mean nothing for `env` fail here, so a setting that would be ignored is not: the
 * extension debugs the user's own tabs (nothing to launch, attach by URL, or download into), and
 * the hosted settings are for env "HOSTED".
 */
export function checkEnvOptions(env: SdkEnv, options: SdkOptions): void {
  if (env === 'EXTENSION') checkExtensionOptions(options);
  else if (options.extension !== undefined) {
    throw new InvalidOptionError(`\`extension\` options are for env "EXTENSION" (inside a Chrome extension), not ${JSON.stringify(env)}.`);
  }
}

/** checkEnvOptions for env "EXTENSION": all that tendril/extension, which has no other env, needs. */
export function checkExtensionOptions(options: SdkOptions): void {
  const given = (name: keyof SdkOptions) => options[name] !== undefined;
  if (given('localBrowserLaunchOptions')) {
    throw new InvalidOptionError(
      'localBrowserLaunchOptions is for env "LOCAL": with env "EXTENSION" the extension debugs its own browser\'s tabs. ' +
        'Name them with `extension: { tabIds }` instead.',
    );
  }
  if (given('downloadsPath')) {
    throw new InvalidOptionError(
      'downloadsPath needs Node and a browser of our own; with env "EXTENSION" the user\'s browser keeps its own download ' +
        'settings. Leave it out.',
    );
  }
  for (const name of ['apiKey', 'projectId', 'hostedApiUrl', 'hostedSessionCreateParams', 'serverCache'] as const) {
    if (given(name)) throw new InvalidOptionError(`${name} is for env "HOSTED" (a remote browser); with env "EXTENSION" leave it out.`);
  }
  const tabIds = options.extension?.tabIds;
  if (tabIds !== undefined && (!Array.isArray(tabIds) || tabIds.length === 0 || !tabIds.every((id) => Number.isInteger(id) && id >= 0))) {
    throw new InvalidOptionError('`extension.tabIds` must be a non-empty array of tab ids (chrome.tabs.Tab.id), or left out for the active tab.');
  }
}

/**
 * The domainPolicy the Sdk's driver enforces, given its own (checked): with env "HOSTED", the
 * session's (the one the server is told to enforce) when it has one. The session's is checked
 * whatever the env.
 */
export function sessionPolicy(env: SdkEnv, options: SdkOptions, own: CheckedPolicy | undefined): CheckedPolicy | undefined {
  let session: CheckedPolicy | undefined;
  try {
    session = checkDomainPolicy(options.hostedSessionCreateParams?.domainPolicy);
  } catch (error) {
    throw new InvalidOptionError(`hostedSessionCreateParams.${(error as Error).message}`);
  }
  return env === 'HOSTED' ? (options.hostedSessionCreateParams?.domainPolicy !== undefined ? session : own) : own;
}

/** SdkOptions.modelServer, checked, with its key (HOSTED_API_KEY by default); undefined when not given. */
export function checkModelServer(env: SdkEnv, options: SdkOptions): ModelServer | undefined {
  const given = options.modelServer;
  if (given === undefined) return undefined;
  const url = isPlainObject(given) && typeof given.url === 'string' && URL.canParse(given.url) ? given.url : '';
  const apiKey = isPlainObject(given) ? (given.apiKey ?? envVar('HOSTED_API_KEY')) : undefined;
  if (env === 'HOSTED' || !/^https?:/.test(url) || typeof apiKey !== 'string' || !apiKey) {
    throw new InvalidOptionError(
      '`modelServer` must be { url, apiKey }: a Tendril hosted server\'s http(s) URL and one of its HOSTED_API_KEYS (default: ' +
        `HOSTED_API_KEY${apiKey ? '' : ', not set'}); not with env "HOSTED", whose models run on the server.`,
    );
  }
  return { url, apiKey };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function checkActOptions(options: unknown): ActOptions {
  const checked = checkExtractOptions(options) as ActOptions;
  const variables = checked.variables;
  if (variables !== undefined) {
    const ok = typeof variables === 'object' && variables !== null && !Array.isArray(variables) && Object.values(variables).every((value) => typeof value === 'string');
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
