// The command line as users run it, for the `tendril text|extract` test files (test/project/cli.test.ts,
// cli-trace.test.ts): a child process of src/cli/main.ts, what it printed and its exit code, and a
// suite's fixture pages, fake model and scratch folder, with the env that points the command at them.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { CHROME } from '../helpers.js';
import { runScript, type Run } from './child.js';
import { startFakeModel, type FakeModel } from './fake-model.js';

export const runCli = (args: string[], env: Record<string, string> = {}): Run => runScript('src/cli/main.ts', args, env);

/** Waits for the command to exit: its code and all it printed. */
export const finished = async (started: Run) => ({ code: await started.exit, stdout: started.stdout(), stderr: started.stderr() });

/**
 * For a suite of commands over the fixture pages: starts them and a fake model before the suite
 * (`ready` gets both), and closes them and removes the scratch folder it returns after it.
 */
export function useCliSuite(prefix: string, ready: (fixtures: FixtureServers, fake: FakeModel) => void): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  let started: [FixtureServers, FakeModel] | undefined;
  beforeAll(async () => {
    started = await Promise.all([startFixtureServers(), startFakeModel()]);
    ready(...started);
  });
  afterAll(async () => {
    await Promise.all(started?.map((each) => each.close()) ?? []);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** The env of a command on the test Chromium whose model is `fake`, with `apiKey` as its key. */
export function cliEnv(fake: FakeModel, apiKey: string): Record<string, string> {
  return { CHROME_PATH: CHROME, MODEL_API_KEY: apiKey, MODEL_BASE_URL: fake.url, MODEL_NAME: 'openai/gpt-4.1-mini' };
}
