// An agent run in a trace (docs/tracing.md): execute() is one action, each step an action inside
// it, and what the step's tools did (the page text its ariaTree tool read) inside the step.

import { describe, expect, it } from 'vitest';
import { Stagehand } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { stagehandOptions, useStagehandWithModel } from '../helpers.js';
import type { FakeModel, FakeReply, FakeRequest } from '../support/fake-model.js';
import { traceEvents } from '../support/trace-file.js';

let servers: FixtureServers;
let fake: FakeModel;
let stagehand: Stagehand;

useStagehandWithModel((startedServers, startedModel) => {
  [servers, fake] = [startedServers, startedModel];
  stagehand = new Stagehand(
    stagehandOptions({ model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-agent-trace-key', baseURL: fake.url } }),
  );
  return stagehand;
});

const call = (name: string, input: unknown = {}): FakeReply => ({ toolCalls: [{ name, input }] });

describe('an agent run in a trace', () => {
  it('nests each step under execute(), and the tools a step called under the step', async () => {
    await stagehand.context.pages()[0]!.goto(servers.a.url('agent-form.html'));
    const loop: FakeReply[] = [call('ariaTree'), { text: 'The form asks for a first name and an email.' }];
    fake.script((request: FakeRequest) =>
      request.tools.length === 1 && request.tools[0] === 'done'
        ? call('done', { reasoning: 'Read the form.', taskComplete: true })
        : (loop.shift() ?? { status: 500, error: 'no step left' }),
    );
    await stagehand.context.tracing.start();
    const result = await stagehand.agent().execute({ instruction: 'say what the form asks for', maxSteps: 4 });
    const bytes = await stagehand.context.tracing.stop();
    expect(result.success).toBe(true);
    const events = traceEvents(bytes);
    const before = events.filter((event) => event.type === 'before');
    const run = before.find((event) => event.title === 'agent: say what the form asks for')!;
    expect(run).toMatchObject({ class: 'Agent', method: 'execute' });
    const steps = before.filter((event) => event.method === 'step');
    expect(steps.map((event) => event.title)).toEqual(['step 1', 'step 2']);
    for (const step of steps) expect(step.parentId).toBe(run.callId);
    const read = before.find((event) => event.title === 'extract: page text')!;
    expect(read.parentId).toBe(steps[0]!.callId);
    const firstStep = events.find((event) => event.type === 'after' && event.callId === steps[0]!.callId)!;
    expect(firstStep.result.toolCalls).toEqual([{ tool: 'ariaTree', input: {} }]);
    expect(firstStep.result.usage.inputTokens).toBeGreaterThan(0);
  }, 60_000);
});
