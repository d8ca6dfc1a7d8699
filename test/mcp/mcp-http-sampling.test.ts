// `tendril mcp --port` without a model of its own, used over Streamable HTTP by a client of protocol
// revision 2026-07-28 that offers sampling: each request is stateless there, so the server asks the
// client's model through `input_required` results, and the client (the SDK's own, fulfilling them
// with its sampling handler) calls the tool again with the answers. The handler plays the model: it
// reads the page text in the prompt it is sent and answers from it.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { browserEnv, call, idOf, nameOf, ok, textOf, type Result } from '../support/mcp.js';
import { runScript, waitForLine, type Run } from '../support/child.js';

let fixtures: FixtureServers;
let server: Run;
let url: string;
beforeAll(async () => {
  fixtures = await startFixtureServers();
  // No model settings: MODEL_* and provider keys of the developer's shell must not give the server one.
  const noModel = {
    MODEL_NAME: '',
    MODEL_API_KEY: '',
    MODEL_BASE_URL: '',
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    GOOGLE_GENERATIVE_AI_API_KEY: '',
  };
  server = runScript('src/cli/main.ts', ['mcp', '--port', '0'], { ...noModel, ...browserEnv() });
  [, url] = (await waitForLine(server, /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/)) as [string, string];
}, 30_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exit;
  await fixtures?.close();
});

interface SamplingRequest {
  systemPrompt: string;
  user: string;
}

interface Connected {
  client: Client;
  /** Every sampling request the client's handler received. */
  requests: SamplingRequest[];
  /** Set what the handler answers: from the request, as a model would. */
  answer: (reply: (request: SamplingRequest) => string, latencyMs?: number) => void;
}

/** A client of revision 2026-07-28 over Streamable HTTP, with a sampling handler or without sampling at all. */
async function connect(options: { sampling: boolean }): Promise<Connected> {
  const client = new Client(
    { name: 'tendril-http-sampling-test', version: '1.0.0' },
    { capabilities: options.sampling ? { sampling: {} } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const requests: SamplingRequest[] = [];
  let reply: (request: SamplingRequest) => string = () => '';
  let latency = 0;
  if (options.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const { params } = request;
      const message = params.messages.at(-1)!;
      const seen: SamplingRequest = {
        systemPrompt: params.systemPrompt ?? '',
        user: message.content && !Array.isArray(message.content) && message.content.type === 'text' ? message.content.text : '',
      };
      requests.push(seen);
      if (latency) await new Promise((resolve) => setTimeout(resolve, latency));
      return {
        model: 'test-client-model',
        role: 'assistant' as const,
        content: { type: 'text' as const, text: reply(seen) },
        stopReason: 'endTurn',
      };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    requests,
    answer: (next, latencyMs = 0) => {
      reply = next;
      latency = latencyMs;
    },
  };
}

describe('tendril mcp --port without a model, from a 2026-07-28 client that offers sampling', () => {
  it("extract, observe and act ask the client's model through input_required rounds, with the page (its out-of-process frame too) in the prompt", async () => {
    const { client, requests, answer } = await connect({ sampling: true });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      // The "model" reads the page text it was sent: the heading, the cross-origin frame's text, and
      // the button in the closed shadow root inside that frame.
      answer((request) =>
        JSON.stringify({
          heading: nameOf(request, 'heading'),
          frameText: /cross-origin child/.exec(request.user)?.[0] ?? '',
          button: nameOf(request, 'button', /oopif/),
        }),
      );
      const schema = {
        type: 'object',
        properties: { heading: { type: 'string' }, frameText: { type: 'string' }, button: { type: 'string' } },
        required: ['heading', 'frameText', 'button'],
      };
      const extracted = JSON.parse(
        await ok(client, 'extract', { instruction: "The page heading, the frame's text and the button inside the frame", schema }),
      );
      expect(extracted).toEqual({ heading: 'Top', frameText: 'cross-origin child', button: 'closed in oopif' });
      // One model request, one round: the client's model was asked once.
      expect(requests).toHaveLength(1);
      expect(requests[0]!.user).toContain("Instruction: The page heading, the frame's text and the button inside the frame");
      expect(requests[0]!.systemPrompt).toMatch(/Answer with one JSON object and nothing else/);

      // observe, then act with what it found (no model), then act with an instruction.
      await ok(client, 'navigate', { url: fixtures.a.url('act.html') });
      answer((request) =>
        JSON.stringify({
          elements: [{ elementId: idOf(request, 'textbox', 'Name'), description: 'the name field', method: 'fill', arguments: ['Ada'] }],
        }),
      );
      const observed = JSON.parse(await ok(client, 'observe', { instruction: 'the name field' })) as Array<{
        selector: string;
        method: string;
      }>;
      expect(observed).toHaveLength(1);
      expect(observed[0]).toMatchObject({ method: 'fill', selector: expect.stringMatching(/^xpath=\/html/) });
      expect(requests).toHaveLength(2);
      await ok(client, 'act', { action: observed[0] });
      expect(requests).toHaveLength(2);

      answer((request) =>
        JSON.stringify({ elementId: idOf(request, 'button', 'Top button'), method: 'click', arguments: [], description: 'the top button' }),
      );
      await ok(client, 'act', { instruction: 'click the top button' });
      expect(requests).toHaveLength(3);
      // Clicked once: the round that asked did not click, the round that knew the answer did.
      expect(await ok(client, 'page_text', { selector: '#top-state' })).toMatch(/top clicked 1\b/);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('a reply that is not JSON is an LLMResponseError tool error, and the next call works', async () => {
    const { client, answer } = await connect({ sampling: true });
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      const schema = { type: 'object', properties: { heading: { type: 'string' } }, required: ['heading'] };
      answer(() => 'Sorry, I would rather not read web pages today.');
      const prose = await call(client, 'extract', { instruction: 'The heading', schema });
      expect(prose.isError).toBe(true);
      expect(textOf(prose)).toMatch(/^LLMResponseError: mcp-client\/sampling did not answer with JSON: "Sorry, I would rather not/);

      answer((request) => JSON.stringify({ heading: nameOf(request, 'heading') }));
      expect(JSON.parse(await ok(client, 'extract', { instruction: 'The heading', schema }))).toEqual({ heading: 'Top' });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a page that changes between rounds ends in a tool error after the bounded number of rounds, and the next call works', async () => {
    const { client, requests, answer } = await connect({ sampling: true });
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('ticking.html') });
      // Each round reads the page again, and it is never the same: each round's prompt is new. The
      // client's model takes a moment, as any model does: on a starved CPU two reads in a row could
      // otherwise both come before the page's next tick.
      answer((request) => JSON.stringify({ extraction: /tick \d+ at [\d.]+/.exec(request.user)?.[0] ?? '' }), 25);
      const endless = await call(client, 'extract', { instruction: 'The clock' });
      expect(endless.isError).toBe(true);
      expect(textOf(endless)).toMatch(
        /^SamplingRoundError: The tool call needed more than 8 rounds of sampling requests to the MCP client\. The page may change/,
      );
      expect(requests).toHaveLength(8);
      expect(new Set(requests.map((request) => request.user)).size).toBe(8);

      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      answer((request) => JSON.stringify({ extraction: nameOf(request, 'heading') }));
      expect(JSON.parse(await ok(client, 'extract', { instruction: 'The heading' }))).toEqual({ extraction: 'Top' });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a retried call whose requestState was altered, or is another call's, is refused with a tool error; the genuine one is served", async () => {
    // A client that does the rounds itself, to send back what it likes.
    const client = new Client(
      { name: 'tendril-http-sampling-test', version: '1.0.0' },
      { capabilities: { sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      const args = { instruction: 'The heading' };
      const first = (await client.callTool({ name: 'extract', arguments: args }, { allowInputRequired: true })) as unknown as {
        resultType?: string;
        inputRequests?: Record<string, { method: string; params: { messages: Array<{ content: { text: string } }> } }>;
        requestState?: string;
      };
      expect(first.resultType).toBe('input_required');
      const entries = Object.entries(first.inputRequests ?? {});
      expect(entries).toHaveLength(1);
      const [key, request] = entries[0]!;
      expect(request.method).toBe('sampling/createMessage');
      expect(request.params.messages.at(-1)!.content.text).toContain('closed in oopif');
      const heading = /heading: (\w+)/.exec(request.params.messages.at(-1)!.content.text)![1];
      const inputResponses = {
        [key]: { model: 'test-client-model', role: 'assistant', content: { type: 'text', text: JSON.stringify({ extraction: heading }) } },
      };
      const state = first.requestState!;
      // A retried call carries the answers and the state next to the tool's name and arguments.
      const retry = async (params: {
        arguments: Record<string, unknown>;
        inputResponses?: unknown;
        requestState: string;
      }): Promise<Result> => (await client.callTool({ name: 'extract', ...params } as Parameters<Client['callTool']>[0])) as Result;
      expect(state).toMatch(/^v1\.[\w-]+\.[\w-]+$/);

      // The state says which round this is: a client that rewinds it to dodge the bound is caught.
      const [version, body, mac] = state.split('.') as [string, string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { p: { round: number } };
      payload.p.round = 0;
      const altered = `${version}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
      for (const [requestState, why] of [
        [altered, /^SamplingRoundError: The retried call carries a requestState this server did not issue/],
        [state.slice(0, -2), /^SamplingRoundError: The retried call carries a requestState this server did not issue/],
      ] as const) {
        const refused = await retry({ arguments: args, inputResponses, requestState });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(why);
      }
      const otherCall = await retry({ arguments: { instruction: 'Something else' }, inputResponses, requestState: state });
      expect(textOf(otherCall)).toMatch(/^SamplingRoundError: The retried call carries the requestState of another tool call/);
      const unanswered = await retry({ arguments: args, requestState: state });
      expect(textOf(unanswered)).toMatch(
        new RegExp(`^SamplingRoundError: The MCP client retried the call without an answer to the sampling request "${key}"`),
      );

      const done = await retry({ arguments: args, inputResponses, requestState: state });
      expect({ isError: done.isError ?? false, value: JSON.parse(textOf(done)) }).toEqual({ isError: false, value: { extraction: 'Top' } });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('without sampling, the missing-model error names both ways to get a model; a 2025-era client, in its MCP session, is asked while the call runs', async () => {
    const { client } = await connect({ sampling: false });
    try {
      await ok(client, 'navigate', { url: fixtures.a.url('frames.html') });
      for (const [tool, args] of [
        ['extract', { instruction: 'The heading' }],
        ['observe', {}],
        ['act', { instruction: 'click the button' }],
      ] as const) {
        const missing = await call(client, tool, args);
        expect(missing.isError).toBe(true);
        expect(textOf(missing)).toMatch(
          /^MissingLLMConfigurationError: .*MODEL_API_KEY.*--model.*--base-url.*an MCP client that offers sampling/s,
        );
        expect(textOf(missing)).not.toMatch(/2026-07-28/);
      }
      expect(await ok(client, 'page_text', { selector: 'h1' })).toMatch(/heading: Top/);
    } finally {
      await client.close();
    }

    // A 2025-era client over HTTP has an MCP session, which remembers that it samples: the server
    // sends it sampling/createMessage while the call runs, as over stdio.
    const legacy = new Client({ name: 'tendril-http-sampling-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const asked: string[] = [];
    legacy.setRequestHandler('sampling/createMessage', async (request) => {
      const message = request.params.messages.at(-1)!;
      const user = message.content && !Array.isArray(message.content) && message.content.type === 'text' ? message.content.text : '';
      asked.push(user);
      return {
        model: 'm',
        role: 'assistant' as const,
        content: { type: 'text' as const, text: JSON.stringify({ extraction: nameOf({ user }, 'heading') }) },
      };
    });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(legacy.getNegotiatedProtocolVersion()).not.toBe('2026-07-28');
      await ok(legacy, 'navigate', { url: fixtures.a.url('frames.html') });
      expect(JSON.parse(await ok(legacy, 'extract', { instruction: 'The heading' }))).toEqual({ extraction: 'Top' });
      expect(asked).toHaveLength(1);
    } finally {
      await legacy.close();
    }
  }, 60_000);
});
