// `tendril text <url>` and `tendril extract <url> "<instruction>"`: one page, read by a local
// Chromium (default), an existing Chrome (--cdp-url) or the hosted service (--hosted). The result
// goes to stdout (text, or JSON), progress to stderr.

import { UrlNotAllowedError } from '../errors.js';
import { schemaFromJson } from '../extract/jsonSchemaInput.js';
import { Sdk } from '../sdk.js';
import type { ModelConfiguration, SdkOptions } from '../types.js';
import { withScheme } from '../util/bareUrl.js';
import { readJsonFlag } from './jsonFile.js';
import { checkCommandLineModel, commandLineModel } from './model.js';
import { Progress } from './progress.js';
import { parseFlags, UsageError } from './usage.js';

const BROWSER_FLAGS = `Browser (default: a local Chrome or Chromium, found as the library finds it, or CHROME_PATH):
  --cdp-url URL        attach to a running Chrome (ws://…, http://host:port, or a DevToolsActivePort path)
  --hosted             use the hosted service: HOSTED_API_URL, HOSTED_API_KEY (HOSTED_PROJECT_ID optional)
Other:
  --selector S         read only this element's subtree (XPath or CSS)
  --timeout MS         deadline of the whole read
  --trace FILE         record the run as a trace zip (docs/tracing.md), written also when it fails
  --quiet              no progress on stderr
  --verbose            the library's log on stderr`;

export const TEXT_USAGE = `tendril text <url> [flags]

Prints the page as text: one line per accessibility node, iframes and shadow roots included.

${BROWSER_FLAGS}`;

export const EXTRACT_USAGE = `tendril extract <url> "<instruction>" [flags]

Prints, as JSON on stdout, what a model extracts from the page: { "extraction": "…" }, or with
--schema the value that JSON Schema describes (links as "format": "uri" come back as the page's URLs).

  --schema FILE        a JSON Schema file (object, array, string, number, integer, boolean, enum, anyOf)
  --model NAME         provider/model (default MODEL_NAME, else openai/gpt-4.1-mini); the key from
                       MODEL_API_KEY or the provider's own variable (OPENAI_API_KEY, …)
  --base-url URL       the model server's URL (default MODEL_BASE_URL), for OpenAI-compatible servers
${BROWSER_FLAGS}

Exit codes: 0 done; 1 the browser, the page or the service failed; 2 the command line or an input
was wrong; 3 the model failed, or its answer did not fit the schema.`;

const COMMON = {
  'cdp-url': { type: 'string' },
  hosted: { type: 'boolean' },
  selector: { type: 'string' },
  timeout: { type: 'string' },
  trace: { type: 'string' },
  quiet: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse<T extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(argv: string[], options: T, usage: string) {
  return parseFlags(argv, options, usage, true);
}

/** A bare host is taken as https:// (example.org/page), or http:// when local (127.0.0.1:8765); anything else must parse as a URL. */
function pageUrl(raw: string | undefined, usage: string): string {
  if (!raw) throw new UsageError('Give the URL of the page.', usage);
  const url = withScheme(raw);
  if (!URL.canParse(url)) throw new UsageError(`${JSON.stringify(raw)} is not a URL.`, usage);
  return url;
}

function timeoutOf(raw: string | undefined, usage: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--timeout takes a positive number of milliseconds, not ${JSON.stringify(raw)}.`, usage);
  return value;
}

function sdkOptions(
  values: { 'cdp-url'?: string; hosted?: boolean; verbose?: boolean },
  usage: string,
  model?: ModelConfiguration,
): SdkOptions {
  if (values.hosted && values['cdp-url']) throw new UsageError('Choose one browser: --cdp-url or --hosted.', usage);
  return {
    env: values.hosted ? 'HOSTED' : 'LOCAL',
    verbose: values.verbose ? 2 : 0,
    disablePino: !values.verbose,
    model,
    localBrowserLaunchOptions: values['cdp-url'] ? { cdpUrl: values['cdp-url'] } : undefined,
  };
}

async function onPage<T>(
  options: SdkOptions,
  url: string,
  progress: Progress,
  tracePath: string | undefined,
  work: (sdk: Sdk) => Promise<T>,
): Promise<T> {
  const sdk = new Sdk(options);
  let tracing = false;
  try {
    progress.step(Sdk.environment(options).startStep(options));
    await sdk.init();
    if (tracePath) {
      await sdk.context.tracing.start({ screenshots: true, snapshots: true, title: `tendril ${url}` });
      tracing = true;
    }
    progress.step(`Opening ${url}…`);
    const response = await sdk.context.pages()[0]!.goto(url);
    // A hosted server answers a page its sessions may not reach with a 403 page of its own: not the page asked for.
    const refused = response?.headers()['x-tendril-refused'];
    if (refused) {
      throw new UrlNotAllowedError(
        `The hosted server refused ${url}: ${refused}. A server of your own reaches this machine and private networks ` +
          'once started with HOSTED_ALLOW_NETWORKS naming them (e.g. 127.0.0.0/8; docs/hosted.md).',
        url,
      );
    }
    return await work(sdk);
  } finally {
    progress.stop();
    // The failure, if any, is already in the trace as its call's error; the command's own error stays the one thrown.
    if (tracing) await writeTrace(sdk, tracePath!);
    await sdk.close();
  }
}

/** Said on stderr even with --quiet: the file is what was asked for, not progress. */
async function writeTrace(sdk: Sdk, path: string): Promise<void> {
  try {
    await sdk.context.tracing.stop({ path });
    process.stderr.write(`trace: ${path} (open it with npx playwright show-trace ${path})\n`);
  } catch (error) {
    // A trace that cannot be written does not change the run's result or exit code: say so only.
    process.stderr.write(`trace: not written: ${(error as Error).message}\n`);
  }
}

export async function textCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, COMMON, TEXT_USAGE);
  if (values.help) {
    process.stdout.write(`${TEXT_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`text takes one URL, not ${positionals.length} words.`, TEXT_USAGE);
  const url = pageUrl(positionals[0], TEXT_USAGE);
  const timeout = timeoutOf(values.timeout, TEXT_USAGE);
  const progress = new Progress(process.stderr, values.quiet === true || values.verbose === true);
  const { pageText } = await onPage(sdkOptions(values, TEXT_USAGE), url, progress, values.trace, (sdk) => {
    progress.step('Reading the page…');
    return sdk.extract({ selector: values.selector, timeout });
  });
  process.stdout.write(pageText.endsWith('\n') ? pageText : `${pageText}\n`);
  return 0;
}

export async function extractCommand(argv: string[]): Promise<number> {
  const options = { ...COMMON, schema: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' } } as const;
  const { values, positionals } = parse(argv, options, EXTRACT_USAGE);
  if (values.help) {
    process.stdout.write(`${EXTRACT_USAGE}\n`);
    return 0;
  }
  const url = pageUrl(positionals[0], EXTRACT_USAGE);
  const instruction = positionals[1]?.trim();
  if (!instruction) throw new UsageError('Say what to extract: tendril extract <url> "<instruction>".', EXTRACT_USAGE);
  if (positionals.length > 2) throw new UsageError('Quote the instruction: it must be one argument.', EXTRACT_USAGE);
  const timeout = timeoutOf(values.timeout, EXTRACT_USAGE);
  const schema = values.schema ? schemaFromJson(await readJsonFlag('--schema', values.schema)) : undefined;
  const model = commandLineModel(values);
  // Before any browser starts, locally or on the hosted service (which is sent the key along).
  await checkCommandLineModel(model, values.hosted !== true);
  const progress = new Progress(process.stderr, values.quiet === true || values.verbose === true);
  const result = await onPage(sdkOptions(values, EXTRACT_USAGE, model), url, progress, values.trace, (sdk) => {
    progress.step(`Asking ${model.modelName}…`);
    const callOptions = { selector: values.selector, timeout };
    return schema ? sdk.extract(instruction, schema, callOptions) : sdk.extract(instruction, callOptions);
  });
  // The cache's verdict is news about the run, not part of the data: it goes to stderr.
  let data: unknown = result;
  if (data && typeof data === 'object' && !Array.isArray(data) && 'cacheStatus' in data) {
    const { cacheStatus, ...rest } = data as Record<string, unknown>;
    if (!values.quiet) process.stderr.write(`hosted cache: ${String(cacheStatus)}\n`);
    data = rest;
  }
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  return 0;
}
