// The job both functions run: one hosted browser session, one action, one extraction. Written on
// the Web's Request and Response only, so the same code serves the Node.js and the Edge runtime.

import { Sdk } from 'tendril';
import * as z from 'zod';

export type Env = Record<string, string | undefined>;

const DEFAULTS = {
  TARGET_URL: 'https://example.com/',
  ACT_INSTRUCTION: 'Click the "More information..." link',
  EXTRACT_INSTRUCTION: 'What is the main heading of the page?',
  MODEL_NAME: 'openai/gpt-4.1-mini',
  HOSTED_REGION: 'us-east-1',
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** With CRON_SECRET set, only the platform's scheduler (or whoever has the secret) may run the job. */
function authorized(request: Request, env: Env): boolean {
  const secret = env.CRON_SECRET;
  return !secret || request.headers.get('authorization') === `Bearer ${secret}`;
}

export async function runJob(request: Request, env: Env): Promise<Response> {
  if (!authorized(request, env)) return json(401, { ok: false, error: 'Unauthorized: send Authorization: Bearer <CRON_SECRET>.' });
  const setting = (name: keyof typeof DEFAULTS) => env[name]?.trim() || DEFAULTS[name];
  let sdk: Sdk | undefined;
  try {
    sdk = new Sdk({
      env: 'HOSTED',
      apiKey: env.HOSTED_API_KEY,
      projectId: env.HOSTED_PROJECT_ID,
      hostedApiUrl: env.HOSTED_API_URL,
      // No key is the model server's own at MODEL_BASE_URL, asked for none; an empty variable is no key.
      model: {
        modelName: setting('MODEL_NAME'),
        apiKey: env.MODEL_API_KEY?.trim() || undefined,
        baseURL: env.MODEL_BASE_URL?.trim() || undefined,
      },
      hostedSessionCreateParams: { region: setting('HOSTED_REGION'), browserSettings: { blockAds: true } },
      disablePino: true,
    });
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(setting('TARGET_URL'));
    await sdk.act(setting('ACT_INSTRUCTION'));
    const data = await sdk.extract(setting('EXTRACT_INSTRUCTION'), z.string());
    return json(200, { ok: true, data });
  } catch (error) {
    return json(500, { ok: false, error: error instanceof Error ? error.message : String(error) });
  } finally {
    await sdk?.close().catch(() => undefined);
  }
}
