// `tendril mcp` without a model of its own, used from a client that offers sampling: extract, act
// and observe ask the client's model through `sampling/createMessage`. The client here is the SDK's
// own Client over stdio, and its sampling handler plays the model: it reads the page text in the
// prompt it is sent and answers from it, as a model would.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { browserEnv, call, idOf, nameOf, ok, textOf } from '../support/mcp.js';
import { startFakeModel, type FakeModel } from '../support/fake-model.js';
import { withDeadline } from '../../src/util/time.js';

let fixtures: FixtureServers;
let fake: FakeModel;
beforeAll(async () => {
  [fixtures, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
});
afterAll(async () => {
  await Promise.all([fixtures?.close(), fake?.close()]);
});

const modelEnv = () => ({ MODEL_NAME: 'openai/gpt-4.1-mini', MODEL_API_KEY: 'sk-sampling-test', MODEL_BASE_URL: fake.url });

/** What the client's handler was sent. */
interface SamplingRequest {
  systemPrompt: string;
  user: string;
  maxTokens: number;
  includeContext: unknown;
  modelPreferences: unknown;
}

type Reply = { text: string } | 'never';

interface Started {
  client: Client;
  stderr: () => string;
  /** Every sampling request the client's handler received. */
  requests: SamplingRequest[];
  /** Set what the handler answers: from the request, as a model would, or never. */
  answer: (reply: (request: SamplingRequest) => Reply) => void;
  /** Resolves when the server cancels a sampling request the handler has not answered. */
  cancelled: () => Promise<void>;
}

/** `modern`: the client negotiates protocol revision 2026-07-28, where the server asks through `input_required` results. */
async function start(env: Record<string, string>, options: { sampling: boolean; args?: string[]; modern?: boolean }): Promise<Started> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', ...(options.args ?? [])],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(
    { name: 'tendril-sampling-test', version: '1.0.0' },
    { capabilities: options.sampling ? { sampling: {} } : {}, ...(options.modern && { versionNegotiation: { mode: 'auto' as const } }) },
  );
  const requests: SamplingRequest[] = [];
  let reply: (request: SamplingRequest) => Reply = () => ({ text: '' });
  let onCancel: (() => void) | undefined;
  const cancelledOnce = new Promise<void>((resolve) => (onCancel = resolve));
  if (options.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) => {
      const { params } = request;
      const message = params.messages.at(-1)!;
      const seen: SamplingRequest = {
        systemPrompt: params.systemPrompt ?? '',
        user: message.content && !Array.isArray(message.content) && message.content.type === 'text' ? message.content.text : '',
        maxTokens: params.maxTokens,
        includeContext: params.includeContext,
        modelPreferences: params.modelPreferences,
      };
      requests.push(seen);
      const answer = reply(seen);
      if (answer === 'never') {
        // A client whose user never looks at the request: only the server's cancellation ends it.
        await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }));
        onCancel?.();
        throw new Error('cancelled');
      }
      return {
        model: 'test-client-model',
        role: 'assistant' as const,
        content: { type: 'text' as const, text: answer.text },
        stopReason: 'endTurn',
      };
    });
  }
  await client.connect(transport);
  return { client, stderr: () => stderr, requests, answer: (next) => (reply = next), cancelled: () => cancelledOnce };
}

const json = (value: unknown): Reply => ({ text: JSON.stringify(value) });

describe('tendril mcp without a model, from a client that offers sampling', () => {
  it("extract, act and observe ask the client's model, with the page (its out-of-process frame too) in the prompt and JSON asked for", async () => {
    const { client, requests, answer, stderr } = await start(browserEnv(), { sampling: true });
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      // The "model" reads the page text it was sent: the heading, and the button in the closed shadow
      // root of the cross-origin frame.
      answer((request) => json({ heading: nameOf(request, 'heading'), button: nameOf(request, 'button', /oopif/) }));
      const schema = {
        type: 'object',
        properties: { heading: { type: 'string' }, button: { type: 'string' } },
        required: ['heading', 'button'],
      };
      const extracted = JSON.parse(
        await ok(client, 'extract', { instruction: 'The page heading and the button inside the frame', schema }),
      );
      expect(extracted).toEqual({ heading: 'Top', button: 'closed in oopif' });
      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request!.user).toContain('Instruction: The page heading and the button inside the frame');
      expect(request!.user).toContain('cross-origin child');
      expect(request!.systemPrompt).toMatch(/You extract data from a web page/);
      expect(request!.systemPrompt).toMatch(/Answer with one JSON object and nothing else/);
      expect(request!.systemPrompt).toContain('"heading"');
      expect(request!.maxTokens).toBeGreaterThan(0);
      expect(request!.includeContext).toBe('none');
      expect(request!.modelPreferences).toMatchObject({ speedPriority: expect.any(Number) });
      // No key ever went out: the server has none, and nothing of the client's identity either.
      expect(JSON.stringify(requests)).not.toMatch(/sk-|api[_-]?key/i);

      // Links come back as the page's real URLs, as with the server's own model.
      await ok(client, 'navigate', { url: fixtures.a.url('extract-shop.html') });
      answer((request) => json({ title: nameOf(request, 'heading'), link: idOf(request, 'link', 'Details of Widget A') }));
      const shop = JSON.parse(
        await ok(client, 'extract', {
          instruction: 'The shop name and the link to the first product',
          schema: {
            type: 'object',
            properties: { title: { type: 'string' }, link: { type: 'string', format: 'uri' } },
            required: ['title', 'link'],
          },
        }),
      );
      expect(shop).toEqual({ title: 'Tendril Shop', link: `${fixtures.a.origin}/products/widget-a?ref=list` });

      // act: the client's model picks the element; the click happens in the page.
      await ok(client, 'navigate', { url: fixtures.a.url('act.html') });
      answer((request) =>
        json({ elementId: idOf(request, 'button', 'Top button'), method: 'click', arguments: [], description: 'the top button' }),
      );
      await ok(client, 'act', { instruction: 'click the top button' });
      expect(await ok(client, 'page_text', { selector: '#top-state' })).toMatch(/top clicked 1/);

      // observe: its list comes from the client's model too.
      answer((request) =>
        json({
          elements: [{ elementId: idOf(request, 'textbox', 'Name'), description: 'the name field', method: 'fill', arguments: ['Ada'] }],
        }),
      );
      const observed = JSON.parse(await ok(client, 'observe', { instruction: 'the name field' })) as Array<{
        selector: string;
        method: string;
      }>;
      expect(observed).toHaveLength(1);
      expect(observed[0]).toMatchObject({ method: 'fill', selector: expect.stringMatching(/^xpath=\/html/) });
      expect(requests).toHaveLength(4);
      expect(stderr()).toMatch(/no model of its own.*sampling/);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('a client of revision 2026-07-28 over stdio is asked through input_required rounds: extract and act work, the click done once', async () => {
    const { client, requests, answer } = await start(browserEnv(), { sampling: true, modern: true });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      answer((request) => json({ heading: nameOf(request, 'heading'), button: nameOf(request, 'button', /oopif/) }));
      const schema = {
        type: 'object',
        properties: { heading: { type: 'string' }, button: { type: 'string' } },
        required: ['heading', 'button'],
      };
      expect(JSON.parse(await ok(client, 'extract', { instruction: 'The heading and the button inside the frame', schema }))).toEqual({
        heading: 'Top',
        button: 'closed in oopif',
      });
      expect(requests).toHaveLength(1);

      await ok(client, 'navigate', { url: fixtures.a.url('act.html') });
      answer((request) =>
        json({ elementId: idOf(request, 'button', 'Top button'), method: 'click', arguments: [], description: 'the top button' }),
      );
      await ok(client, 'act', { instruction: 'click the top button' });
      expect(requests).toHaveLength(2);
      expect(await ok(client, 'page_text', { selector: '#top-state' })).toMatch(/top clicked 1\b/);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('a reply that is not JSON, or does not fit the schema, is a clear tool error, and the next call works', async () => {
    const { client, answer } = await start(browserEnv(), { sampling: true });
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      const schema = { type: 'object', properties: { heading: { type: 'string' } }, required: ['heading'] };
      answer(() => ({ text: 'Sorry, I would rather not read web pages today.' }));
      const prose = await call(client, 'extract', { instruction: 'The heading', schema });
      expect(prose.isError).toBe(true);
      expect(textOf(prose)).toMatch(/^LLMResponseError: mcp-client\/sampling did not answer with JSON: "Sorry, I would rather not/);

      answer(() => json({ heading: 42 }));
      const misfit = await call(client, 'extract', { instruction: 'The heading', schema });
      expect(misfit.isError).toBe(true);
      expect(textOf(misfit)).toMatch(/^SchemaValidationError: /);
      expect(textOf(misfit)).toMatch(/heading/);

      answer((request) => json({ heading: nameOf(request, 'heading') }));
      expect(JSON.parse(await ok(client, 'extract', { instruction: 'The heading', schema }))).toEqual({ heading: 'Top' });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a client that never answers is a TimeoutError within --model-timeout, the request is cancelled, and the next call works', async () => {
    const timeoutMs = 4000;
    const { client, answer, cancelled, requests } = await start(browserEnv(), {
      sampling: true,
      args: ['--model-timeout', String(timeoutMs)],
    });
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      answer(() => 'never');
      const started = Date.now();
      const hung = await call(client, 'extract', { instruction: 'The heading' });
      const elapsed = Date.now() - started;
      expect(hung.isError).toBe(true);
      expect(textOf(hung)).toMatch(new RegExp(`^TimeoutError: .*timed out after ${timeoutMs} ms.*--model-timeout`, 's'));
      expect(elapsed).toBeLessThan(timeoutMs + 3000);
      // The deadline was the model's: the client was asked (the process's first model call loads the
      // AI SDK, seconds under load, which once took all of it), and is told to stop waiting for its user.
      expect(requests).toHaveLength(1);
      await withDeadline(cancelled(), 10_000, 'The server cancelling the sampling request it timed out');

      answer((request) => json({ extraction: nameOf(request, 'heading') }));
      expect(JSON.parse(await ok(client, 'extract', { instruction: 'The heading' }))).toEqual({ extraction: 'Top' });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a server at --base-url is the server's own model with no key: asked for none, and the client's is not asked", async () => {
    const keyless = await start(browserEnv(), { sampling: true, args: ['--base-url', fake.url] });
    try {
      await ok(keyless.client, 'navigate', { url: fixtures.a.url('frames.html') });
      fake.reset();
      fake.script([{ json: { extraction: 'from the keyless server' } }]);
      keyless.answer(() => json({ extraction: 'from the client' }));
      expect(JSON.parse(await ok(keyless.client, 'extract', { instruction: 'The heading' }))).toEqual({
        extraction: 'from the keyless server',
      });
      expect(fake.requests.map((request) => request.headers.authorization)).toEqual(['Bearer unused']);
      expect(keyless.requests).toEqual([]);
    } finally {
      await keyless.client.close();
    }
  }, 60_000);

  it("a server with a model of its own uses it, not the client's; with neither, the error names both ways to get one", async () => {
    const own = await start({ ...browserEnv(), ...modelEnv() }, { sampling: true });
    try {
      await ok(own.client, 'navigate', { url: fixtures.a.url('frames.html') });
      fake.reset();
      fake.script([{ json: { extraction: 'from the server model' } }]);
      own.answer(() => json({ extraction: 'from the client' }));
      expect(JSON.parse(await ok(own.client, 'extract', { instruction: 'The heading' }))).toEqual({ extraction: 'from the server model' });
      expect(fake.requests).toHaveLength(1);
      expect(own.requests).toEqual([]);
    } finally {
      await own.client.close();
    }

    const neither = await start(browserEnv(), { sampling: false });
    try {
      await ok(neither.client, 'navigate', { url: fixtures.a.url('frames.html') });
      for (const [tool, args] of [
        ['extract', { instruction: 'The heading' }],
        ['observe', {}],
        ['act', { instruction: 'click the button' }],
      ] as const) {
        const missing = await call(neither.client, tool, args);
        expect(missing.isError).toBe(true);
        // In the words of the command that started the server (its flags and variables), not the library's options.
        expect(textOf(missing)).toMatch(
          /^MissingLLMConfigurationError: No API key for openai\/gpt-4\.1-mini: set MODEL_API_KEY \(or OPENAI_API_KEY\)\..*--model openai-compatible\/<name> --base-url .*an MCP client that offers sampling/s,
        );
        expect(textOf(missing)).not.toMatch(/apiKey|modelName/);
      }
      // Still serving.
      expect(await ok(neither.client, 'page_text', { selector: 'h1' })).toMatch(/heading: Top/);
    } finally {
      await neither.client.close();
    }
  }, 90_000);
});
