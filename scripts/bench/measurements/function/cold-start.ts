// One cold start of a bundled function: a fresh Node process (child.mjs) with the function's own
// variables, and every check on what it answered.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { HostedServer } from '../../../../src/hosted/server/http.js';
import type { BenchModelServer } from '../../core/model.js';
import type { Instructions } from './answers.js';
import type { BuiltFunction } from './bundles.js';
import type { HeaderProxy } from './header-proxy.js';

/** Runs one cold start in a fresh process. */
export const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'child.mjs');
/** What the function must answer once act() clicked the button once: the fake reads the counter. */
export const EXPECTED_DATA = 'votes: 1';
/** The hosted server's key, given to both functions. */
export const API_KEY = 'bench-function-key';
const PROJECT_ID = 'bench';
const REGION = 'us-east-1';

/** One cold start, ms from the child's first line: until `import()` resolved, until the answer was read. */
export interface ColdStart {
  readonly importMs: number;
  readonly totalMs: number;
  /** Model requests that arrived during the run. */
  readonly modelRequests: number;
}

export type Variables = Record<string, string>;

/** Each function's environment, as a platform would give it: its own variables and nothing else of ours. */
export function functionVariables(
  page: string,
  model: BenchModelServer,
  server: HostedServer,
  proxy: HeaderProxy,
): Record<string, (i: Instructions) => Variables> {
  const base = (i: Instructions): Variables => ({
    ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
    ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
    TARGET_URL: page,
    ACT_INSTRUCTION: i.act,
    EXTRACT_INSTRUCTION: i.extract,
    MODEL_NAME: model.model.modelName,
    MODEL_API_KEY: model.model.apiKey,
    MODEL_BASE_URL: model.model.baseURL,
  });
  return {
    tendril: (i) => ({
      ...base(i),
      HOSTED_API_KEY: API_KEY,
      HOSTED_PROJECT_ID: PROJECT_ID,
      HOSTED_API_URL: server.url,
      HOSTED_REGION: REGION,
    }),
    stagehand: (i) => ({
      ...base(i),
      BROWSERBASE_API_KEY: API_KEY,
      BROWSERBASE_PROJECT_ID: PROJECT_ID,
      // Read by the Browserbase SDK itself (Stagehand passes it no base URL).
      BROWSERBASE_BASE_URL: proxy.url,
      BROWSERBASE_REGION: REGION,
    }),
  };
}

interface ChildResult {
  readonly importMs?: number;
  readonly totalMs?: number;
  readonly status?: number;
  readonly body?: string;
  readonly error?: string;
}

/** One run in a fresh process, and every check on what it answered (each failure throws). */
export async function coldStart(
  id: string,
  fn: BuiltFunction,
  variables: Variables,
  instructions: Instructions,
  model: BenchModelServer,
  proxy: HeaderProxy,
  timeoutMs: number,
): Promise<ColdStart> {
  const requestsBefore = model.fake.requests.length;
  const callsBefore = proxy.calls.length;
  const child = await runChild(fn.file, variables, timeoutMs);
  if (child.error !== undefined) throw new Error(`the function threw: ${child.error.split('\n')[0]}`);
  const body = child.body ?? '';
  if (child.status !== 200) throw new Error(`the function answered ${child.status}: ${body.slice(0, 300)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`the function answered 200 with a body that is not JSON: ${body.slice(0, 120)}`);
  }
  if (JSON.stringify(parsed) !== JSON.stringify({ ok: true, data: EXPECTED_DATA })) {
    throw new Error(`the function answered 200 ${body.slice(0, 200)}, not {"ok":true,"data":"${EXPECTED_DATA}"}`);
  }
  const requests = model.fake.requests.slice(requestsBefore);
  if (!requests.some((r) => r.prompt.includes(instructions.act))) throw new Error('act() sent the model no request with its instruction');
  if (
    id === 'stagehand' &&
    !proxy.calls.slice(callsBefore).some((c) => c.method === 'POST' && c.path === '/v1/sessions' && c.status === 201)
  ) {
    throw new Error('Stagehand did not create its session through the header proxy');
  }
  return { importMs: child.importMs!, totalMs: child.totalMs!, modelRequests: requests.length };
}

function runChild(file: string, variables: Variables, timeoutMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, pathToFileURL(file).href, 'POST'], {
      cwd: path.dirname(file),
      env: variables,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as ChildResult);
      } catch {
        const why = err.trim().split('\n').slice(-3).join(' ') || out.trim().slice(-200) || 'no output';
        reject(new Error(`the process exited (${signal ?? `code ${code}`}) without a result: ${why}`));
      }
    });
  });
}
