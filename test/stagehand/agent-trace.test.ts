// An agent run in a trace (docs/tracing.md): execute() is one action, each step an action inside
// it, and what the step's tools did (the page text its ariaTree tool read) inside the step. Each of
// the loop's model requests, and the verdict's, is an attachment of the step (or the run) that made
// it, with the messages sent, the answer and the tokens; a streamed execute() is an action too.

import { describe, expect, it } from 'vitest';
import { AgentAbortError, Stagehand } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { stagehandOptions, useStagehandWithModel } from '../helpers.js';
import { abortWhileModelThinks } from '../support/agent-stream.js';
import type { FakeModel, FakeReply, FakeRequest } from '../support/fake-model.js';
import { traceEvents, type TraceEvent } from '../support/trace-file.js';
import { unzip } from '../support/zip.js';
import { Instrumentation, type Call } from '../../src/util/instrumentation.js';

let servers: FixtureServers;
let fake: FakeModel;
let stagehand: Stagehand;
const KEY = 'sk-agent-trace-key';

useStagehandWithModel((startedServers, startedModel) => {
  [servers, fake] = [startedServers, startedModel];
  // experimental: Stagehand lets streaming and signals through only with it.
  stagehand = new Stagehand(
    stagehandOptions({ experimental: true, model: { modelName: 'openai/gpt-4.1-mini', apiKey: KEY, baseURL: fake.url } }),
  );
  return stagehand;
});

const call = (name: string, input: unknown = {}): FakeReply => ({ toolCalls: [{ name, input }] });
const isVerdict = (request: FakeRequest) => request.tools.length === 1 && request.tools[0] === 'done';

/** The loop's replies in order, then the verdict's. */
function script(loop: FakeReply[]): void {
  fake.reset();
  fake.script((request) =>
    isVerdict(request)
      ? call('done', { reasoning: 'Read the form.', taskComplete: true })
      : (loop.shift() ?? { status: 500, error: 'no step left' }),
  );
}

interface ModelRequestFile {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  tools?: string[];
  answer: { text?: string; toolCalls?: Array<{ toolName: string; input: unknown }> };
  usage: { promptTokens: number; completionTokens: number };
  timeMs: number;
  budgetLeft?: Array<{ scope: string; limit: number; left: number }>;
}

/** A trace's actions and its model requests by the call that holds them. */
function readTrace(bytes: Uint8Array) {
  const files = unzip(bytes);
  const events = traceEvents(bytes);
  const before = events.filter((event) => event.type === 'before');
  const after = (action: TraceEvent) => events.find((event) => event.type === 'after' && event.callId === action.callId);
  const requests = (action: TraceEvent): ModelRequestFile[] =>
    ((after(action)?.attachments ?? []) as Array<{ name: string; file: string }>)
      .filter((attachment) => attachment.name.startsWith('model request '))
      .map((attachment) => JSON.parse(files.get(attachment.file)!.toString()) as ModelRequestFile);
  return { files, before, after, requests };
}

describe('an agent run in a trace', () => {
  it('nests each step under execute(), the tools a step called and its model request under the step, the verdict under the run', async () => {
    await stagehand.context.pages()[0]!.goto(servers.a.url('agent-form.html'));
    script([call('ariaTree'), { text: 'The form asks for a first name and an email.' }]);
    await stagehand.context.tracing.start();
    const result = await stagehand
      .agent()
      .execute({ instruction: 'say what the form asks for', maxSteps: 4, budget: { maxTokens: 100_000 } });
    const bytes = await stagehand.context.tracing.stop();
    expect(result.success).toBe(true);
    const { files, before, after, requests } = readTrace(bytes);
    const run = before.find((event) => event.title === 'agent: say what the form asks for')!;
    expect(run).toMatchObject({ class: 'Agent', method: 'execute' });
    const steps = before.filter((event) => event.method === 'step');
    expect(steps.map((event) => event.title)).toEqual(['step 1', 'step 2']);
    for (const step of steps) expect(step.parentId).toBe(run.callId);
    const read = before.find((event) => event.title === 'extract: page text')!;
    expect(read.parentId).toBe(steps[0]!.callId);
    const firstStep = after(steps[0]!)!;
    expect(firstStep.result.toolCalls).toEqual([{ tool: 'ariaTree', input: {} }]);
    expect(firstStep.result.usage.inputTokens).toBeGreaterThan(0);

    // The model requests: none is an action of its own; each is its maker's attachment.
    expect(before.filter((event) => event.class === 'Model')).toEqual([]);
    const [loop, verdict] = [fake.requests.filter((request) => !isVerdict(request)), fake.requests.filter(isVerdict)];
    expect([loop.length, verdict.length]).toEqual([2, 1]);
    const [first, second] = [requests(steps[0]!), requests(steps[1]!)];
    expect([first.length, second.length]).toEqual([1, 1]);
    expect(first[0]).toMatchObject({
      model: expect.stringMatching(/^openai\/gpt-4\.1-mini/),
      answer: { toolCalls: [{ toolName: 'ariaTree', input: {} }], finishReason: 'tool-calls' },
      usage: { promptTokens: loop[0]!.promptTokens, completionTokens: expect.any(Number) },
    });
    expect(first[0]!.usage.completionTokens).toBeGreaterThan(0);
    expect(first[0]!.tools).toEqual(loop[0]!.tools);
    expect(first[0]!.tools).toEqual(expect.arrayContaining(['ariaTree', 'act', 'extract']));
    expect(first[0]!.messages[0]).toMatchObject({ role: 'system' });
    expect(JSON.stringify(first[0]!.messages)).toContain('say what the form asks for');
    // The second request sent the first's tool call back, with what ariaTree read of the page.
    expect(second[0]!.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(loop[1]!.toolResults[0]!.output).toContain('Join the club');
    expect(JSON.stringify(second[0]!.messages.at(-1))).toContain('Join the club');
    expect(second[0]).toMatchObject({
      answer: { text: 'The form asks for a first name and an email.' },
      usage: { promptTokens: loop[1]!.promptTokens },
    });
    // What the run's budget had left after each request: less after each.
    const left = [first[0]!, second[0]!].map((request) => request.budgetLeft?.[0]);
    expect(left[0]).toMatchObject({ scope: 'call', limit: 100_000 });
    expect(left[0]!.left).toBe(100_000 - first[0]!.usage.promptTokens - first[0]!.usage.completionTokens);
    expect(left[1]!.left).toBe(left[0]!.left - second[0]!.usage.promptTokens - second[0]!.usage.completionTokens);
    // The verdict is asked after the steps, by the run itself.
    expect(requests(run)).toMatchObject([
      { answer: { toolCalls: [{ toolName: 'done', input: { reasoning: 'Read the form.', taskComplete: true } }] }, tools: ['done'] },
    ]);
    expect(requests(run)[0]!.usage.promptTokens).toBe(verdict[0]!.promptTokens);
    for (const [name, data] of files) expect(data.includes(KEY), `${name} holds the API key`).toBe(false);
  }, 60_000);

  it('makes a streamed execute() one action with its steps and their model requests, ended by its result or its abort', async () => {
    await stagehand.context.pages()[0]!.goto(servers.a.url('agent-form.html'));
    script([call('ariaTree'), { text: 'A first name and an email.' }]);
    await stagehand.context.tracing.start();
    const agent = stagehand.agent({ stream: true });
    const streamed = await agent.execute({ instruction: 'read the form as it streams', maxSteps: 4 });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    const result = await streamed.result;
    const bytes = await stagehand.context.tracing.stop();
    expect([text, result.success]).toEqual(['A first name and an email.', true]);
    const { files, before, after, requests } = readTrace(bytes);
    const run = before.find((event) => event.title === 'agent: read the form as it streams')!;
    expect(run).toMatchObject({ class: 'Agent', method: 'execute', params: { stream: true } });
    expect(after(run)!.result).toMatchObject({ success: true });
    const steps = before.filter((event) => event.method === 'step');
    expect(steps.map((event) => [event.title, event.parentId])).toEqual([
      ['step 1', run.callId],
      ['step 2', run.callId],
    ]);
    // ariaTree ran while its request's stream was still open: it nests under the step all the same.
    expect(before.find((event) => event.title === 'extract: page text')!.parentId).toBe(steps[0]!.callId);
    const loop = fake.requests.filter((request) => !isVerdict(request));
    expect(loop.every((request) => request.body.stream === true)).toBe(true);
    expect(requests(steps[0]!)).toMatchObject([
      { answer: { toolCalls: [{ toolName: 'ariaTree' }] }, usage: { promptTokens: loop[0]!.promptTokens } },
    ]);
    expect(requests(steps[1]!)).toMatchObject([
      { answer: { text: 'A first name and an email.' }, usage: { promptTokens: loop[1]!.promptTokens } },
    ]);
    expect(requests(steps[1]!)[0]!.usage.completionTokens).toBeGreaterThan(0);
    expect(requests(run)).toMatchObject([{ answer: { toolCalls: [{ toolName: 'done' }] } }]);
    for (const [name, data] of files) expect(data.includes(KEY), `${name} holds the API key`).toBe(false);

    // An aborted stream ends its action with the abort, its step and its model request with it.
    fake.reset();
    fake.script(() => ({ hang: true }));
    await stagehand.context.tracing.start();
    await abortWhileModelThinks(agent, fake, 'wait for a reply');
    const aborted = readTrace(await stagehand.context.tracing.stop());
    const waiting = aborted.before.find((event) => event.title === 'agent: wait for a reply')!;
    expect(aborted.after(waiting)!.error).toMatchObject({ name: 'AgentAbortError' });
    const step = aborted.before.find((event) => event.method === 'step' && event.parentId === waiting.callId)!;
    expect(aborted.after(step)).toBeDefined();
    expect(aborted.requests(step)).toHaveLength(1);
  }, 60_000);

  it('writes a trace stopped while a streamed run still waits for its model', async () => {
    await stagehand.context.pages()[0]!.goto(servers.a.url('agent-form.html'));
    fake.reset();
    fake.script(() => ({ hang: true }));
    await stagehand.context.tracing.start();
    const controller = new AbortController();
    const hanging = await stagehand.agent({ stream: true }).execute({ instruction: 'never answered', signal: controller.signal });
    const drained = (async () => {
      for await (const _ of hanging.fullStream);
    })();
    await fake.nextRequest();
    const { before, after } = readTrace(await stagehand.context.tracing.stop());
    const run = before.find((event) => event.title === 'agent: never answered')!;
    expect(run).toMatchObject({ class: 'Agent', method: 'execute' });
    // Still running when the trace stopped: the viewer shows it without an end.
    expect(after(run)).toBeUndefined();
    controller.abort('done waiting');
    await expect(hanging.result).rejects.toBeInstanceOf(AgentAbortError);
    await drained.catch(() => {});
  }, 60_000);

  it("keeps a model request off the seam's stack: a tool its streamed answer starts nests under the step", async () => {
    // A real provider streams a tool call well before its finish, and the AI SDK runs the tool at
    // once; the fake model sends its stream in one go, so this is shown on the seam itself.
    const seam = new Instrumentation();
    const parents = new Map<string, string | undefined>();
    seam.add({ around: (each: Call, next) => (parents.set(each.api, each.parent?.api), next()) });
    let finishStream!: () => void;
    const streaming = new Promise<void>((resolve) => (finishStream = resolve));
    const step = seam.open({ api: 'Agent.step', title: 'step 1', params: {} });
    const request = seam.run(
      () => ({ api: 'Model.request', title: 'model', params: {}, leaf: true }),
      () => streaming.then(() => ({ value: {}, usage: { promptTokens: 1, completionTokens: 1 } })),
    );
    await seam.run(
      () => ({ api: 'Sdk.extract', title: 'extract: page text', params: {} }),
      async () => undefined,
    );
    finishStream();
    await request;
    step.end();
    expect(Object.fromEntries(parents)).toEqual({ 'Agent.step': undefined, 'Model.request': 'Agent.step', 'Sdk.extract': 'Agent.step' });
  });
});
