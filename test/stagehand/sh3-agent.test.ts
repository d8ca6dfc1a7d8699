// Stagehand 3's agent on Tendril (DOM mode): `stagehand.agent(config).execute(...)` runs the AI SDK's
// tool loop against the fake model, whose script calls the agent's tools step by step (ariaTree,
// fillForm, act, extract, goto, think) while the inner act/observe/extract requests are answered as
// in the other suites. Real Chromium, fixture pages; the page is checked, not just the result.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentAbortError,
  ExperimentalNotConfiguredError,
  InvalidOptionError,
  Stagehand,
  StagehandInvalidArgumentError,
  StreamingCallbacksInNonStreamingModeError,
  tool,
  type AgentStep,
} from '../../src/index.js';
import { createOpenAI } from '@ai-sdk/openai';
import { chromium } from 'playwright-core';
import { MODEL_OBJECT } from '../../src/llm/ask.js';
import type { FixtureServers } from '../fixtures/server.js';
import { abortWhileModelThinks } from '../support/agent-stream.js';
import { CHROME, stagehandOptions, TEST_ARGS, useStagehandWithModel } from '../helpers.js';
import type { FakeModel, FakeReply, FakeRequest } from '../support/fake-model.js';

let servers: FixtureServers;
let fake: FakeModel;
let stagehand: Stagehand;
const model = (name = 'openai/gpt-4.1-mini') => ({ modelName: name, apiKey: 'sk-agent-test', baseURL: fake.url });

/** The id of the line `role: name` in a prompt, as a model reading it would pick. */
function idOf(request: FakeRequest, role: string, name: string): string {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user);
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}

/** The inner act/fillForm model's answers on agent-form.html: fill First name and Email, or click Join now. */
const joinForm = (request: FakeRequest): FakeReply =>
  request.schema && JSON.stringify(request.schema).includes('elements')
    ? {
        json: {
          elements: [
            { elementId: idOf(request, 'textbox', 'First name'), description: 'First name field', method: 'fill', arguments: ['Ada'] },
            { elementId: idOf(request, 'textbox', 'Email'), description: 'Email field', method: 'fill', arguments: ['%email%'] },
          ],
        },
      }
    : { json: { elementId: idOf(request, 'button', 'Join now'), method: 'click', arguments: [], description: 'click Join now' } };

const isLoop = (request: FakeRequest) => request.tools.includes('ariaTree');
const isVerdict = (request: FakeRequest) => request.tools.length === 1 && request.tools[0] === 'done';
const loopRequests = () => fake.requests.filter(isLoop);
const call = (name: string, input: unknown = {}): FakeReply => ({ toolCalls: [{ name, input }] });
const verdict = (reasoning: string, taskComplete: boolean, output?: unknown): FakeReply =>
  call('done', { reasoning, taskComplete, ...(output ? { output } : {}) });

/**
 * The agent's model: `steps` answer the loop's requests in order, `inner` the act/observe/extract
 * requests its tools make, `done` the closing verdict.
 */
function script(
  steps: Array<FakeReply | ((request: FakeRequest) => FakeReply)>,
  inner: (request: FakeRequest) => FakeReply,
  done: FakeReply,
): void {
  let step = 0;
  fake.script((request) => {
    if (isVerdict(request)) return done;
    if (!isLoop(request)) return inner(request);
    const next = steps[step++] ?? { status: 500, error: 'agent test: no loop step left' };
    return typeof next === 'function' ? next(request) : next;
  });
}

useStagehandWithModel((startedServers, startedModel) => {
  [servers, fake] = [startedServers, startedModel];
  // experimental: Stagehand lets callbacks, signals, messages, tools, streaming and output through only with it.
  stagehand = new Stagehand(stagehandOptions({ experimental: true, model: model() }));
  return stagehand;
});
beforeEach(async () => {
  fake.reset();
  await stagehand.context.pages()[0]!.goto(servers.a.url('agent-form.html'));
});

const page = () => stagehand.context.pages()[0]!;
const status = () => page().evaluate(() => document.getElementById('done')!.textContent);

describe('stagehand.agent() in the DOM mode', () => {
  it('fills a form and submits it in a few steps, with a placeholder the model never sees, and reports its actions', async () => {
    const before = await stagehand.metrics;
    const historyBefore = (await stagehand.history).length;
    script(
      [
        call('ariaTree'),
        call('fillForm', { fields: [{ action: 'type Ada into the First name field' }, { action: 'type %email% into the Email field' }] }),
        call('act', { action: 'click the Join now button' }),
        { text: 'I joined the club as Ada.' },
      ],
      joinForm,
      verdict('Filled in the form and joined as Ada.', true),
    );
    const steps: AgentStep[] = [];
    const agent = stagehand.agent({ systemPrompt: 'Be brief.' });
    const result = await agent.execute({
      instruction: 'Join the club as Ada with my email',
      maxSteps: 10,
      variables: { email: { value: 'ada@example.org', description: 'my email address' } },
      callbacks: { onStepFinish: (step) => void steps.push(step) },
    });

    expect(await status()).toBe('Welcome, Ada (ada@example.org)');
    expect(result).toMatchObject({ success: true, completed: true, message: 'Filled in the form and joined as Ada.' });
    expect(result.actions.map((action) => action.type)).toEqual(['ariaTree', 'fillForm', 'act', 'act', 'act', 'done']);
    expect(result.actions[2]).toMatchObject({ type: 'act', playwrightArguments: { method: 'fill', arguments: ['Ada'] } });
    expect(result.actions[4]).toMatchObject({ type: 'act', action: 'click the Join now button', playwrightArguments: { method: 'click' } });
    expect(result.actions[4]!.pageUrl).toContain('agent-form.html');
    expect(steps.map((step) => step.toolCalls.map((each) => each.toolName))).toEqual([['ariaTree'], ['fillForm'], ['act'], []]);

    // What the model read: the task, our prompt with the placeholder's name and description, the page text back from ariaTree.
    const [first, second] = loopRequests();
    expect(first!.system).toContain('Join the club as Ada with my email');
    expect(first!.system).toContain('%email%: my email address');
    expect(first!.system).toContain('Be brief.');
    expect(second!.toolResults[0]!.output).toContain('button: Join now');
    // The agent's own requests carry the placeholder, never the value (act's page text shows the filled field, as the page does).
    expect(
      JSON.stringify(fake.requests.filter((request) => isLoop(request) || isVerdict(request)).map((request) => request.body)),
    ).not.toContain('ada@example.org');
    expect(JSON.stringify(second!.body.tools)).toContain('"items":{"type":"object"');
    expect(result.messages!.length).toBeGreaterThan(4);

    // The loop's tokens are the agent's; its tools' requests count as observe and act, and history has those calls.
    const after = await stagehand.metrics;
    expect(after.agentPromptTokens).toBeGreaterThan(before.agentPromptTokens);
    expect(after.totalPromptTokens).toBe(
      after.actPromptTokens + after.extractPromptTokens + after.observePromptTokens + after.agentPromptTokens,
    );
    expect(stagehand.metrics.total.promptTokens).toBe(after.totalPromptTokens);
    expect(after.observePromptTokens).toBeGreaterThan(before.observePromptTokens);
    expect(result.usage!.input_tokens).toBe(after.agentPromptTokens - before.agentPromptTokens);
    const history = (await stagehand.history).slice(historyBefore);
    // ariaTree reads with extract(), as Stagehand's does.
    expect(history.map((entry) => entry.method)).toEqual(['extract', 'observe', 'act', 'act', 'act']);
  });

  it('reads with extract, with its own model for the loop and the tools, and returns the requested output', async () => {
    script(
      [
        call('extract', {
          instruction: 'the plans and their prices',
          schema: {
            type: 'object',
            properties: {
              plans: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } } },
            },
          },
        }),
        { text: 'Basic is the cheapest.' },
      ],
      () => ({
        json: {
          plans: [
            { name: 'Basic plan', price: 5 },
            { name: 'Gold plan', price: 12 },
          ],
        },
      }),
      verdict('Read both plans.', true, { cheapest: 'Basic plan', price: 5 }),
    );
    const agent = stagehand.agent({ model: model('openai/agent-model') });
    const result = await agent.execute({
      instruction: 'Which plan is cheapest?',
      output: z.object({ cheapest: z.string(), price: z.number() }),
    });

    expect(result).toMatchObject({ success: true, completed: true, output: { cheapest: 'Basic plan', price: 5 } });
    expect(result.actions[0]).toMatchObject({
      type: 'extract',
      instruction: 'the plans and their prices',
      success: true,
      result: {
        plans: [
          { name: 'Basic plan', price: 5 },
          { name: 'Gold plan', price: 12 },
        ],
      },
    });
    const extractRequest = fake.requests.find((request) => !isLoop(request) && !isVerdict(request))!;
    expect(extractRequest.user).toContain('Gold plan: 12 EUR');
    expect(loopRequests()[1]!.toolResults[0]!.output).toContain('Gold plan');
    // agent({ model }) runs the loop, the tools' calls and the verdict.
    expect(new Set(fake.requests.map((request) => request.model))).toEqual(new Set(['agent-model']));
    const verdictRequest = fake.requests.find(isVerdict)!;
    expect(verdictRequest.toolChoice).toMatchObject({ type: 'function', name: 'done' });
    expect(JSON.stringify(verdictRequest.body.tools)).toContain('cheapest');

    // The conversation goes on with the earlier messages.
    script([{ text: 'It costs 5 EUR.' }], () => ({ status: 500 }), verdict('Answered from before.', true));
    const again = await agent.execute({ instruction: 'And its price?', messages: result.messages });
    expect(again.success).toBe(true);
    expect(fake.requests.filter(isLoop).at(-1)!.user).toContain('Which plan is cheapest?');
  });

  it('stops at maxSteps: completed is false however the verdict reads', async () => {
    script(
      [call('think', { reasoning: 'first' }), call('think', { reasoning: 'second' }), call('think', { reasoning: 'third' })],
      () => ({ status: 500 }),
      verdict('Looks done to me.', true),
    );
    const result = await stagehand.agent().execute({ instruction: 'Think forever', maxSteps: 2 });
    expect(loopRequests()).toHaveLength(2);
    expect(result.completed).toBe(false);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/^Agent stopped: reached maximum steps \(2\)/);
    expect(result.actions.filter((action) => action.type === 'think').map((action) => action.reasoning ?? action.message)).toEqual([
      'first',
      'second',
    ]);
  });

  it('runs the tool calls of one step one after the other, in order', async () => {
    script(
      [
        call('keys', { method: 'press', value: 'Tab' }),
        {
          toolCalls: [
            { name: 'keys', input: { method: 'type', value: 'abc' } },
            { name: 'keys', input: { method: 'type', value: 'xyz' } },
          ],
        },
        { text: 'Typed.' },
      ],
      () => ({ status: 500 }),
      verdict('Typed both.', true),
    );
    const result = await stagehand.agent().execute('Type abc, then xyz, into the first field');
    expect(await page().evaluate(() => (document.getElementById('first') as HTMLInputElement).value)).toBe('abcxyz');
    expect(result.actions.filter((action) => action.type === 'keys').map((action) => action.value)).toEqual(['Tab', 'abc', 'xyz']);
  });

  it("gives a tool's error back to the model, which goes on", async () => {
    script(
      [
        call('act', { action: 'click the Leave button' }),
        call('goto', { url: 'http://127.0.0.1:9/nowhere' }),
        call('extract', { instruction: 'the date', schema: { type: 'object', properties: { when: { type: 'date' } } } }),
        { text: 'Nothing worked.' },
      ],
      () => ({ json: { elementId: null, method: 'click', arguments: [], description: 'no Leave button here' } }),
      verdict('There is no Leave button.', false),
    );
    const result = await stagehand.agent().execute('Leave the club');
    expect(result).toMatchObject({ success: false, completed: false, message: 'There is no Leave button.' });
    expect(result.actions.map((action) => action.type)).toEqual(['act', 'goto', 'extract', 'done']);
    expect(result.actions[0]).toMatchObject({ success: false, error: expect.any(String) });
    expect(result.actions[1]).toMatchObject({ success: false, error: expect.stringMatching(/NavigationError/) });
    expect(result.actions[2]).toMatchObject({ success: false, error: expect.stringMatching(/type "date"/) });
    const [, second, third, fourth] = loopRequests();
    expect(second!.toolResults.at(-1)!.output).toMatch(/"success":false/);
    expect(third!.toolResults.at(-1)!.output).toMatch(/"success":false.*NavigationError/);
    expect(fourth!.toolResults.at(-1)!.output).toMatch(/"success":false.*date/);
  });

  it('resolves a run the provider refuses as failed, as Stagehand does, without the key in the message', async () => {
    script([{ status: 401, error: 'Incorrect API key provided: sk-agent-test' }], () => ({ status: 500 }), verdict('never', true));
    const result = await stagehand.agent().execute('Join the club');
    expect(result).toMatchObject({ success: false, completed: false, actions: [] });
    expect(result.message).toMatch(/^Failed to execute task: .*Incorrect API key provided: \*\*\*/);
    expect(result.message).not.toContain('sk-agent-test');
    expect(fake.requests).toHaveLength(1);
  });

  it('ends with AgentAbortError when its signal aborts, and the session stays usable', async () => {
    script([() => ({ hang: true })], () => ({ status: 500 }), verdict('never', true));
    const controller = new AbortController();
    const run = stagehand.agent().execute({ instruction: 'Wait for me', signal: controller.signal });
    await fake.nextRequest();
    controller.abort('the user changed their mind');
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentAbortError);
    expect((error as AgentAbortError).reason).toBe('the user changed their mind');
    expect((await fake.nextAbort()).aborted).toBe(true);
    expect(fake.requests.filter(isVerdict)).toHaveLength(0);

    // Aborted while a tool runs, one that ignores the signal: the run lets go of it, and asks nothing more.
    fake.reset();
    script([call('stall')], () => ({ status: 500 }), verdict('never', true));
    let started!: () => void;
    const stalled = new Promise<void>((resolve) => (started = resolve));
    const stall = {
      description: 'Never ends.',
      inputSchema: (await import('ai')).jsonSchema({ type: 'object', properties: {} }),
      execute: () => (started(), new Promise(() => {})),
    };
    const during = new AbortController();
    const waiting = stagehand.agent({ tools: { stall } }).execute({ instruction: 'Stall', signal: during.signal });
    await stalled;
    during.abort(new Error('enough waiting'));
    await expect(waiting).rejects.toThrow(/enough waiting/);
    expect(fake.requests.filter(isLoop)).toHaveLength(1);

    // Aborted before it starts: no request at all.
    const requests = fake.requests.length;
    await expect(stagehand.agent().execute({ instruction: 'x', signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AgentAbortError);
    expect(fake.requests.length).toBe(requests);

    const { pageText } = await stagehand.extract();
    expect(pageText).toContain('button: Join now');
    fake.script((request) => ({
      json: { elementId: idOf(request, 'button', 'Join now'), method: 'click', arguments: [], description: 'click' },
    }));
    expect((await stagehand.act('click Join now')).success).toBe(true);
  });

  it('streams with stream: true: the text as it comes, the chunks to onChunk, then the result; an abort rejects the result', async () => {
    script(
      [call('think', { reasoning: 'say hello' }), { text: 'Hello from the stream.' }],
      () => ({ status: 500 }),
      verdict('Said hello.', true),
    );
    const kinds: string[] = [];
    const stepTools: string[][] = [];
    let finished = 0;
    const agent = stagehand.agent({ stream: true });
    const streamed = await agent.execute({
      instruction: 'Say hello',
      callbacks: {
        onChunk: ({ chunk }) => void kinds.push((chunk as { type: string }).type),
        onStepFinish: (step) => void stepTools.push(step.toolCalls.map((each) => each.toolName)),
        onFinish: () => void finished++,
      },
    });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    const result = await streamed.result;
    expect(text).toBe('Hello from the stream.');
    expect(kinds).toContain('tool-call');
    expect(stepTools).toEqual([['think'], []]);
    expect(finished).toBe(1);
    expect(result).toMatchObject({ success: true, completed: true, message: 'Said hello.' });
    expect(result.actions.map((action) => action.type)).toEqual(['think', 'done']);
    expect(loopRequests().every((request) => request.body.stream === true)).toBe(true);

    fake.reset();
    script([() => ({ hang: true })], () => ({ status: 500 }), verdict('never', true));
    await abortWhileModelThinks(agent, fake, 'Wait');
  });

  it('takes tools of the caller (made with the exported tool()), leaves out excluded ones, calls prepareStep, and speaks Chat Completions too', async () => {
    const lookups: string[] = [];
    // Stagehand's `tool` (the AI SDK's), with a zod schema that types `name`.
    const lookup = tool({
      description: 'Tells whether a person is a member of the club.',
      inputSchema: z.object({ name: z.string() }),
      execute: async ({ name }) => {
        lookups.push(name);
        return { member: name === 'Ada' };
      },
    });
    script([call('lookup', { name: 'Ada' }), { text: 'Ada is a member.' }], () => ({ status: 500 }), verdict('Ada is a member.', true));
    const prepared: number[] = [];
    const agent = stagehand.agent({ model: { ...model(), openaiEndpointFormat: 'chat' }, tools: { lookup } });
    const result = await agent.execute({
      instruction: 'Is Ada a member?',
      excludeTools: ['screenshot', 'goto'],
      callbacks: { prepareStep: ({ stepNumber }) => void prepared.push(stepNumber) },
    });
    expect(lookups).toEqual(['Ada']);
    expect(result).toMatchObject({ success: true });
    expect(result.actions[0]).toMatchObject({ type: 'lookup', name: 'Ada', member: true });
    const [first, second] = loopRequests();
    expect(first!.endpoint).toBe('chat');
    expect(first!.tools).toContain('lookup');
    expect(first!.tools).not.toContain('screenshot');
    expect(first!.tools).not.toContain('goto');
    expect(first!.system).toContain('also: lookup');
    expect(second!.toolResults[0]!.output).toContain('"member":true');
    expect(prepared).toEqual([0, 1]);
  });

  it('works in the hybrid mode: clicks and types at screenshot points, sees each result, and sends only the latest pictures again', async () => {
    const centre = (selector: string) =>
      page().evaluate((css) => {
        const box = document.querySelector(css)!.getBoundingClientRect();
        return [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];
      }, selector);
    const [first, email, join] = await Promise.all([centre('#first'), centre('#email'), centre('button')]);
    script(
      [
        call('screenshot'),
        call('type', { describe: 'First name field', text: 'Grace', coordinates: first }),
        call('fillFormVision', { fields: [{ action: 'type the email', value: '%email%', coordinates: { x: email![0], y: email![1] } }] }),
        call('click', { describe: 'Join now button', coordinates: join }),
        { text: 'Joined.' },
      ],
      () => ({ status: 500 }),
      verdict('Joined as Grace.', true),
    );
    // No mode: Stagehand picks the hybrid mode for this model, and so does Tendril.
    const agent = stagehand.agent({ model: model('openai/gpt-5.4-mini') });
    const result = await agent.execute({ instruction: 'Join as Grace', variables: { email: 'grace@example.org' } });

    expect(await status()).toBe('Welcome, Grace (grace@example.org)');
    // The hybrid mode draws the pointer, where it clicked last.
    await expect
      .poll(() => page().evaluate(() => document.getElementById('__tendrilCursor')?.style.transform))
      .toBe(`translate(${join![0]}px, ${join![1]}px)`);
    expect(result).toMatchObject({ success: true, message: 'Joined as Grace.' });
    expect(result.actions.map((action) => action.type)).toEqual(['screenshot', 'type', 'fillFormVision', 'click', 'done']);
    expect(result.actions[3]).toMatchObject({ success: true, describe: 'Join now button', coordinates: join });
    expect(JSON.stringify(result.actions)).not.toContain('screenshotBase64');
    const loop = loopRequests();
    expect(loop[0]!.tools).toEqual(expect.arrayContaining(['click', 'type', 'dragAndDrop', 'clickAndHold', 'fillFormVision', 'act']));
    expect(loop[0]!.tools).not.toContain('fillForm');
    expect(loop[0]!.system).toContain('point of the screenshot');
    const pictures = (request: FakeRequest) => JSON.stringify(request.body.input).split('"input_image"').length - 1;
    // Each action answered with a picture; four were taken, the last request carries the latest two.
    expect(loop.map(pictures)).toEqual([0, 1, 2, 2, 2]);
    expect(JSON.stringify(loop[4]!.body)).toContain('An earlier screenshot, left out');
    expect(JSON.stringify(loop.map((request) => request.body))).not.toContain('grace@example.org');
  });

  it("scales a Google model's 0-1000 grid to the window in the hybrid mode", async () => {
    const size = await page().evaluate(() => [window.innerWidth, window.innerHeight]);
    const box = await page().evaluate(() => {
      const rect = document.querySelector('button')!.getBoundingClientRect();
      return [rect.x + rect.width / 2, rect.y + rect.height / 2];
    });
    const grid = [Math.round((box[0]! / size[0]!) * 1000), Math.round((box[1]! / size[1]!) * 1000)];
    script(
      [call('click', { describe: 'Join now button', coordinates: grid }), { text: 'Clicked.' }],
      () => ({ status: 500 }),
      verdict('Clicked Join now.', true),
    );
    // A Google model, as far as the agent can tell, whose requests still go to the fake model.
    const google = {
      modelName: 'google/gemini-3-fake',
      [MODEL_OBJECT]: createOpenAI({ baseURL: fake.url, apiKey: 'sk-agent-test' }).responses('gemini-3-fake'),
    };
    const result = await stagehand.agent({ model: google as never }).execute('Press Join now');
    expect(result.actions[0]).toMatchObject({
      type: 'click',
      success: true,
      coordinates: [Math.floor((grid[0]! / 1000) * size[0]!), Math.floor((grid[1]! / 1000) * size[1]!)],
    });
    expect(await status()).toBe('Welcome,  ()');
  });

  it('taps instead of clicking in the hybrid mode when useTouch is set, as Stagehand does', async () => {
    const touch = new Stagehand({
      verbose: 0,
      disablePino: true,
      useTouch: true,
      model: model(),
      localBrowserLaunchOptions: { headless: true, executablePath: CHROME, args: TEST_ARGS, hasTouch: true },
    });
    try {
      await touch.init();
      const tab = touch.context.pages()[0]!;
      await tab.goto(servers.a.url('agent-form.html'));
      const join = await tab.evaluate(() => {
        const box = document.querySelector('button')!.getBoundingClientRect();
        return [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];
      });
      script(
        [call('click', { describe: 'Join now button', coordinates: join }), { text: 'Tapped.' }],
        () => ({ status: 500 }),
        verdict('Tapped Join now.', true),
      );
      const result = await touch.agent({ mode: 'hybrid' }).execute('Press Join now');
      expect(result.success).toBe(true);
      expect(await tab.evaluate(() => [document.body.dataset.touched, document.getElementById('done')!.textContent])).toEqual([
        'yes',
        'Welcome,  ()',
      ]);
    } finally {
      await touch.close();
    }
  });

  it('with cacheDir, keeps a run that succeeded and replays it on the same page with no model request', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tendril-agent-cache-'));
    const cached = new Stagehand({
      verbose: 0,
      disablePino: true,
      cacheDir: folder,
      model: model(),
      localBrowserLaunchOptions: { headless: true, executablePath: CHROME, args: TEST_ARGS },
    });
    try {
      await cached.init();
      const tab = cached.context.pages()[0]!;
      const done = () => tab.evaluate(() => document.getElementById('done')!.textContent);
      await tab.goto(servers.a.url('agent-form.html'));
      script(
        [
          call('fillForm', { fields: [{ action: 'type Ada into the First name field' }, { action: 'type %email% into the Email field' }] }),
          call('act', { action: 'click the Join now button' }),
          { text: 'Joined.' },
        ],
        joinForm,
        verdict('Joined as Ada.', true),
      );
      const first = await cached.agent().execute({ instruction: 'Join as Ada', variables: { email: 'ada@example.org' } });
      expect(first.success).toBe(true);
      expect(await done()).toBe('Welcome, Ada (ada@example.org)');
      expect(readdirSync(folder).filter((name) => name.startsWith('agent-'))).toHaveLength(1);

      // Same instruction, same page, another value: the kept steps run, with the value filled in, and no model is asked.
      fake.reset();
      await tab.goto(servers.a.url('agent-form.html?again=1'));
      const again = await cached.agent().execute({ instruction: 'Join as Ada', variables: { email: 'ada@example.com' } });
      expect(again).toMatchObject({ success: true, completed: true, message: 'Joined as Ada.', metadata: { cacheHit: true } });
      expect(again.actions.map((action) => action.type)).toEqual(first.actions.map((action) => action.type));
      expect(await done()).toBe('Welcome, Ada (ada@example.com)');
      expect(fake.requests).toHaveLength(0);

      // Another page: nothing kept fits, so the agent runs (and here its model refuses).
      fake.script(() => ({ status: 401, error: 'refused' }));
      await tab.goto(servers.b.url('agent-form.html'));
      const elsewhere = await cached.agent().execute({ instruction: 'Join as Ada', variables: { email: 'ada@example.com' } });
      expect(elsewhere.success).toBe(false);
      expect(fake.requests.length).toBeGreaterThan(0);
    } finally {
      await cached.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('works on a Playwright page given as `page`, which becomes the active page', async () => {
    const browser = await chromium.connectOverCDP(stagehand.connectURL());
    try {
      const pwPage = await browser.contexts()[0]!.newPage();
      await pwPage.goto(servers.b.url('agent-form.html'));
      script(
        [call('act', { action: 'click the Join now button' }), { text: 'Clicked.' }],
        (request) => ({
          json: { elementId: idOf(request, 'button', 'Join now'), method: 'click', arguments: [], description: 'click Join now' },
        }),
        verdict('Clicked.', true),
      );
      const result = await stagehand.agent().execute({ instruction: 'Press Join now', page: pwPage });
      expect(result.success).toBe(true);
      expect(await pwPage.textContent('#done')).toBe('Welcome,  ()');
      expect(stagehand.context.activePage()!.url()).toBe(pwPage.url());
      expect(await status()).toBe('');
    } finally {
      await browser.close();
      stagehand.context.setActivePage(page());
    }
  });

  it('refuses what it cannot do with typed errors naming what works, before any request', async () => {
    await expect(stagehand.agent({ mode: 'cua' }).execute('x')).rejects.toThrow(StagehandInvalidArgumentError);
    await expect(stagehand.agent({ cua: true }).execute('x')).rejects.toThrow(/mode "cua".*mode "hybrid"/);
    await expect(stagehand.agent({ integrations: ['https://mcp.example/sse'] }).execute('x')).rejects.toThrow(/integrations.*`tools`/);
    expect(() => stagehand.agent({ mode: 'vision' as never })).toThrow(/mode must be "dom"/);
    expect(() => stagehand.agent({ instructions: 'be quick' } as never)).toThrow(/Stagehand 2.*systemPrompt/);
    expect(() => stagehand.agent({ model: 'gpt-4.1-mini', bogus: 1 } as never)).toThrow(/unknown option `bogus`/);
    expect(() => stagehand.agent({ tools: { lookup: { run: () => 1 } } as never })).toThrow(/tools.lookup.*tool\(\{/);
    const agent = stagehand.agent();
    await expect(agent.execute('  ')).rejects.toThrow(InvalidOptionError);
    await expect(agent.execute({ instruction: 'x', maxSteps: 0 })).rejects.toThrow(/maxSteps/);
    await expect(agent.execute({ instruction: 'x', excludeTools: ['teleport'] })).rejects.toThrow(/teleport.*ariaTree/);
    await expect(agent.execute({ instruction: 'x', useSearch: true })).rejects.toThrow(InvalidOptionError);
    await expect(agent.execute({ instruction: 'x', page: { url: () => 'about:blank' } })).rejects.toThrow(/Playwright or Puppeteer page/);
    await expect(agent.execute({ instruction: 'x', callbacks: { onChunk: (() => {}) as never } })).rejects.toBeInstanceOf(
      StreamingCallbacksInNonStreamingModeError,
    );
    await expect(
      agent.execute({ instruction: 'x', callbacks: { onSafetyConfirmation: async () => ({ acknowledged: true }) } }),
    ).rejects.toThrow(StagehandInvalidArgumentError);
    await expect(agent.execute({ instruction: 'x', callbacks: { onEvidence: () => {} } })).rejects.toThrow(/onEvidence.*onStepFinish/);
    await expect(stagehand.agent({ model: { modelName: 'nobody/model' } }).execute('x')).rejects.toThrow(/Unknown model provider "nobody"/);
    expect(fake.requests).toHaveLength(0);
  });

  it("keeps Stagehand's gate: experimental features without experimental: true, and what the cua mode cannot take", async () => {
    // The gate comes before the browser: this instance is never started.
    const plain = new Stagehand({ verbose: 0, disablePino: true, model: model() });
    const features = await plain
      .agent()
      .execute({
        instruction: 'x',
        callbacks: { onStepFinish: () => {} },
        signal: new AbortController().signal,
        messages: [{ role: 'user', content: 'earlier' }],
      })
      .catch((error: unknown) => error);
    expect(features).toBeInstanceOf(ExperimentalNotConfiguredError);
    expect((features as Error).message).toMatch(/callbacks, abort signal, message continuation/);
    await expect(plain.agent({ tools: { lookup: { inputSchema: {} } } }).execute('x')).rejects.toThrow(/MCP integrations and custom tools/);
    await expect(plain.agent({ stream: true }).execute('x')).rejects.toThrow(ExperimentalNotConfiguredError);
    await expect(plain.agent().execute({ instruction: 'x', output: z.object({ a: z.string() }) })).rejects.toThrow(/output schema/);
    // A computer-use agent is checked when it is made, and for what it cannot take even with experimental: true.
    expect(() => plain.agent({ cua: true, stream: true })).toThrow(/streaming is not supported with CUA/);
    expect(() => plain.agent({ cua: true, integrations: ['https://mcp.example/sse'] })).toThrow(ExperimentalNotConfiguredError);
    const cua = stagehand.agent({ cua: true });
    await expect(cua.execute({ instruction: 'x', signal: new AbortController().signal, messages: [] })).rejects.toThrow(
      /abort signal, message continuation are not supported with CUA/,
    );
    await plain.close();
    expect(fake.requests).toHaveLength(0);
  });
});
