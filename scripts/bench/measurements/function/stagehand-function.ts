// The reference function (examples/serverless: api/run.ts and lib/job.ts) written on Stagehand 3.7.3,
// for the bench's `function` measurement: one Browserbase session per call, one act(), one extract(),
// and the same answers. Never imported by the project: the bench hands this file to esbuild with
// the scratch install (.bench/stagehand-3.7.3) as the folder its imports resolve from, so
// `@browserbasehq/stagehand` and `zod` (3) are the ones installed there.
//
// The Browserbase SDK inside Stagehand takes its base URL from BROWSERBASE_BASE_URL (Stagehand has
// no option for it), which is how the bench points it at its local hosted server.

// @ts-expect-error: only resolvable from the scratch install, where the bench bundles this file
import { Stagehand } from '@browserbasehq/stagehand';
import { z } from 'zod';

type Env = Record<string, string | undefined>;

const DEFAULTS = {
  TARGET_URL: 'https://example.com/',
  ACT_INSTRUCTION: 'Click the "More information..." link',
  EXTRACT_INSTRUCTION: 'What is the main heading of the page?',
  MODEL_NAME: 'openai/gpt-4.1-mini',
  BROWSERBASE_REGION: 'us-east-1',
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function authorized(request: Request, env: Env): boolean {
  const secret = env.CRON_SECRET;
  return !secret || request.headers.get('authorization') === `Bearer ${secret}`;
}

async function runJob(request: Request, env: Env): Promise<Response> {
  if (!authorized(request, env)) return json(401, { ok: false, error: 'Unauthorized: send Authorization: Bearer <CRON_SECRET>.' });
  const setting = (name: keyof typeof DEFAULTS) => env[name]?.trim() || DEFAULTS[name];
  let stagehand: InstanceType<typeof Stagehand> | undefined;
  try {
    stagehand = new Stagehand({
      env: 'BROWSERBASE',
      apiKey: env.BROWSERBASE_API_KEY,
      projectId: env.BROWSERBASE_PROJECT_ID,
      model: { modelName: setting('MODEL_NAME'), apiKey: env.MODEL_API_KEY, baseURL: env.MODEL_BASE_URL || undefined },
      browserbaseSessionCreateParams: {
        projectId: env.BROWSERBASE_PROJECT_ID,
        region: setting('BROWSERBASE_REGION'),
        browserSettings: { blockAds: true },
      },
      // Without it init() also opens a session on Browserbase's own Stagehand API server, which runs
      // act() and extract() there; nobody can run that server locally, so they run in this process.
      disableAPI: true,
      disablePino: true,
    });
    await stagehand.init();
    const page = stagehand.context.pages()[0];
    await page.goto(setting('TARGET_URL'));
    await stagehand.act(setting('ACT_INSTRUCTION'));
    const data = await stagehand.extract(setting('EXTRACT_INSTRUCTION'), z.string());
    return json(200, { ok: true, data });
  } catch (error) {
    return json(500, { ok: false, error: error instanceof Error ? error.message : String(error) });
  } finally {
    await stagehand?.close().catch(() => undefined);
  }
}

export function POST(request: Request): Promise<Response> {
  return runJob(request, process.env);
}

export function GET(request: Request): Promise<Response> {
  return runJob(request, process.env);
}
