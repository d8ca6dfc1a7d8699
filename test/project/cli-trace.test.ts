// `tendril text|extract URL --trace FILE`: the run recorded as a trace zip, written at the end
// whether the command succeeded or failed, its path said on stderr, the exit code unchanged.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FixtureServers } from '../fixtures/server.js';
import { readServerConfig } from '../../src/hosted/server/config.js';
import { startHostedServer } from '../../src/hosted/server/http.js';
import { Logger } from '../../src/logger.js';
import { CHROME, HOSTED_TEST_ENV, TEST_ARGS } from '../helpers.js';
import { cliEnv, finished, runCli as run, useCliSuite } from '../support/cli.js';
import type { FakeModel } from '../support/fake-model.js';
import { traceActions, traceEvents } from '../support/trace-file.js';
import { unzip } from '../support/zip.js';

describe('tendril text|extract --trace', () => {
  let fixtures: FixtureServers;
  let fake: FakeModel;
  const dir = useCliSuite('tendril-cli-trace-', (...started) => ([fixtures, fake] = started));
  const env = () => cliEnv(fake, 'sk-cli-trace');

  it('extract --trace writes the run (goto, the extract and its model request, screencast, snapshots) and says where', async () => {
    fake.reset();
    fake.script([{ json: { extraction: 'three widgets' } }]);
    const file = path.join(dir, 'extract.zip');
    const page = fixtures.a.url('extract-shop.html');
    const result = await finished(run(['extract', page, 'How many widgets?', '--trace', file, '--quiet'], env()));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ extraction: 'three widgets' });
    expect(result.stderr).toContain(`trace: ${file}`);
    const titles = traceActions(file).map((action) => action.title);
    expect(titles[0]).toBe(`goto ${page}`);
    expect(titles).toContain('extract: How many widgets?');
    const events = traceEvents(file);
    expect(events[0]).toMatchObject({ type: 'context-options', title: `tendril ${page}` });
    expect(events.some((event) => event.type === 'screencast-frame')).toBe(true);
    expect(events.some((event) => event.type === 'frame-snapshot')).toBe(true);
    expect(events.some((event) => event.type === 'after' && event.attachments?.length)).toBe(true);
  }, 60_000);

  it('text --trace writes the trace when the page cannot be reached too: the failure is in it, the exit code stays 1', async () => {
    const file = path.join(dir, 'failed.zip');
    // Port 9 (discard) has no listener here: the connection is refused.
    const result = await finished(run(['text', 'http://127.0.0.1:9/', '--trace', file], env()));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/NavigationError/);
    expect(result.stderr).toContain(`trace: ${file}`);
    expect(existsSync(file)).toBe(true);
    const [goto] = traceActions(file);
    expect(goto).toMatchObject({ title: 'goto http://127.0.0.1:9/', error: { name: 'NavigationError' } });
  }, 60_000);

  it("--hosted --trace: the client's trace holds the extract with the server's answer and model use (cache MISS with its tokens, then HIT with none)", async () => {
    const hosted = await startHostedServer(
      readServerConfig({
        ...HOSTED_TEST_ENV,
        PORT: '0',
        HOSTED_API_KEYS: 'cli-trace-key',
        CHROME_PATH: CHROME,
        CHROME_ARGS: TEST_ARGS.join(' '),
      }),
      new Logger({ verbose: 0, disablePino: true }),
    );
    try {
      fake.reset();
      fake.script(() => ({ json: { extraction: 'three widgets' }, completionTokens: 7 }));
      const hostedEnv = { ...env(), HOSTED_API_KEY: 'cli-trace-key', HOSTED_PROJECT_ID: '', HOSTED_API_URL: hosted.url };
      const extractOf = async (file: string) => {
        const args = ['extract', fixtures.a.url('extract-shop.html'), 'How many widgets?', '--hosted', '--trace', file];
        const result = await finished(run(args, hostedEnv));
        expect(result.code, result.stderr).toBe(0);
        // Screenshots and snapshots come through the hosted session's browser, as the client drives it.
        const events = traceEvents(file);
        expect(events.some((event) => event.type === 'screencast-frame')).toBe(true);
        expect(events.some((event) => event.type === 'frame-snapshot')).toBe(true);
        // Neither the model's key nor the service's is in any file of the zip.
        const files = unzip(readFileSync(file));
        for (const [name, data] of files) {
          for (const secret of ['sk-cli-trace', 'cli-trace-key']) expect(data.includes(secret), `${secret} in ${name}`).toBe(false);
        }
        const action = traceActions(file).find((each) => each.title === 'extract: How many widgets?');
        const before = events.find((event) => event.type === 'before' && event.title === 'extract: How many widgets?')!;
        const after = events.find((event) => event.type === 'after' && event.callId === before.callId)!;
        // Each attachment by name, with its JSON.
        const attached = (after.attachments as Array<{ name: string; file?: string }>).map((each) => ({
          name: each.name,
          body: each.file ? JSON.parse(files.get(each.file)!.toString()) : undefined,
        }));
        return { action, attached };
      };
      const promptTokens = () => fake.requests[0]!.promptTokens;
      const noTokens = { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, cachedInputTokens: 0, inferenceTimeMs: 0 };

      const miss = await extractOf(path.join(dir, 'hosted-1.zip'));
      expect(miss.action).toMatchObject({ result: { extraction: 'three widgets', cacheStatus: 'MISS' } });
      expect(fake.requests).toHaveLength(1);
      // The server's model request, as an attachment of the client's call: its model, tokens and time, not its messages.
      const request = miss.attached.find((each) => each.name === 'model request 1: openai/gpt-4.1-mini');
      expect(request?.body).toMatchObject({ model: 'openai/gpt-4.1-mini', usage: { promptTokens: promptTokens(), completionTokens: 7 } });
      expect(request?.body.timeMs).toBeGreaterThan(0);
      expect(request?.body.messages).toBeUndefined();
      // The call's notes: the cache's decision and the tokens, added up.
      const missAnswer = miss.attached.find((each) => each.name.startsWith('hosted answer'));
      expect(missAnswer?.name).toBe(`hosted answer: cache MISS, ${promptTokens()} + 7 tokens`);
      expect(missAnswer?.body).toMatchObject({
        cacheStatus: 'MISS',
        modelRequests: 1,
        usage: { promptTokens: promptTokens(), completionTokens: 7 },
      });

      const hit = await extractOf(path.join(dir, 'hosted-2.zip'));
      expect(hit.action).toMatchObject({ result: { extraction: 'three widgets', cacheStatus: 'HIT' } });
      expect(fake.requests).toHaveLength(1);
      // A HIT made no request and used no tokens now; it says what the cached answer cost when it was made.
      expect(hit.attached.filter((each) => each.name.startsWith('model request'))).toEqual([]);
      const hitAnswer = hit.attached.find((each) => each.name.startsWith('hosted answer'));
      expect(hitAnswer?.name).toBe('hosted answer: cache HIT, 0 + 0 tokens');
      expect(hitAnswer?.body).toEqual({
        cacheStatus: 'HIT',
        modelRequests: 0,
        usage: noTokens,
        cachedCost: {
          ...request!.body.usage,
          reasoningTokens: 0,
          cachedInputTokens: 0,
          inferenceTimeMs: expect.any(Number),
          modelRequests: 1,
        },
      });
    } finally {
      await hosted.close();
    }
  }, 120_000);
});
