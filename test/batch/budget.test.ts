// Token budgets (docs/budgets.md) against real Chromium and the fake model server: a request that
// would pass a budget never reaches the model, per-call budgets override the Sdk's, an account is
// asked before and charged after with what the model reported, and an agent run stops at its budget.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BudgetExceededError, InvalidOptionError, Sdk, Stagehand, type TokenAccount, type TokenUsage } from '../../src/index.js';
import type { FixtureServers } from '../fixtures/server.js';
import { sdkOptions, stagehandOptions, useStagehandWithModel } from '../helpers.js';
import type { FakeModel, FakeReply, FakeRequest } from '../support/fake-model.js';

let servers: FixtureServers;
let fake: FakeModel;
let stagehand: Stagehand;
const model = (extra: Record<string, unknown> = {}) => ({
  modelName: 'openai/gpt-4.1-mini',
  apiKey: 'sk-budget-test',
  baseURL: fake.url,
  ...extra,
});

/** An account that holds `tokens` and keeps every usage it is charged. */
function account(tokens = 1_000_000): TokenAccount & { spent: TokenUsage[]; asked: number; left: number } {
  const own = {
    spent: [] as TokenUsage[],
    asked: 0,
    left: tokens,
    remaining: async () => {
      own.asked++;
      return own.left;
    },
    spend: async (usage: TokenUsage) => {
      own.spent.push(usage);
      own.left -= usage.totalTokens;
    },
  };
  return own;
}

/** What the fake model said each request used, as the provider's usage reports it. */
const reported = (request: FakeRequest, completionTokens: number) => ({
  promptTokens: request.promptTokens,
  completionTokens,
  totalTokens: request.promptTokens + completionTokens,
});

async function refusal(work: Promise<unknown>): Promise<BudgetExceededError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(BudgetExceededError);
  return error as BudgetExceededError;
}

useStagehandWithModel((startedServers, startedModel) => {
  [servers, fake] = [startedServers, startedModel];
  stagehand = new Stagehand(stagehandOptions({ experimental: true, model: model() }));
  return stagehand;
});
beforeEach(async () => {
  fake.reset();
  await stagehand.context.pages()[0]!.goto(servers.a.url('extract-shop.html'));
});

describe("a call's budget", () => {
  it('stops extract, act and observe before the request is sent when the estimate does not fit', async () => {
    fake.script([{ json: { extraction: 'never asked' } }]);
    const extracted = await refusal(stagehand.extract('Which products are listed?', { budget: { maxTokens: 300 } }));
    expect(extracted).toMatchObject({ scope: 'call', limit: 300, used: 0, name: 'BudgetExceededError' });
    expect(extracted.needed).toBeGreaterThan(300);
    expect(extracted.message).toMatch(/not sent: it needs about \d+ tokens.*the call's budget has 300 of 300 left\. Raise it/);
    await refusal(stagehand.observe('the buy buttons', { budget: { maxTokens: 300 } }));
    await refusal(stagehand.act('click the first buy button', { budget: { maxTokens: 300 } }));
    expect(fake.requests).toHaveLength(0);
    // The instance stays usable: a call that fits goes through.
    fake.script([{ json: { extraction: 'Widgets' } }]);
    expect(await stagehand.extract('Which products are listed?')).toEqual({ extraction: 'Widgets' });
  });

  it('sends the output cap and charges its account with the usage the model reported', async () => {
    const own = account();
    fake.script([{ json: { extraction: 'Widgets A, B and C' }, completionTokens: 17 }]);
    const result = await stagehand.extract('Which products are listed?', {
      budget: { maxTokens: 50_000, account: own, maxOutputTokens: 321 },
    });
    expect(result).toEqual({ extraction: 'Widgets A, B and C' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.max_output_tokens).toBe(321);
    expect(own.asked).toBe(1);
    expect(own.spent).toEqual([reported(fake.requests[0]!, 17)]);
  });

  it('refuses when the account has too little left, without sending', async () => {
    const own = account(500);
    const error = await refusal(stagehand.extract('Which products are listed?', { budget: { account: own } }));
    expect(error).toMatchObject({ scope: 'account', limit: 500, used: 0 });
    expect(error.needed).toBeGreaterThan(4096);
    expect(fake.requests).toHaveLength(0);
    expect(own.spent).toEqual([]);
  });

  it('counts every chunk of one extract: the chunk that would pass maxTokens is not sent', async () => {
    await stagehand.context.pages()[0]!.goto(servers.a.url('extract-table.html'));
    fake.script(() => ({ json: { value: [] }, completionTokens: 5 }));
    const maxTokens = 5_000;
    const error = await refusal(
      stagehand.extract('Every inventory row', z.array(z.object({ name: z.string() })), {
        model: model({ maxInputTokens: 2_000, maxParallelCalls: 1 }),
        budget: { maxTokens, maxOutputTokens: 200 },
      }),
    );
    // Chunks went one at a time until the next one's estimate did not fit what the earlier ones used.
    const sent = fake.requests.length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(fake.requests.at(-1)!.user).toMatch(/part \d+ of (\d+)/);
    const chunks = Number(/part \d+ of (\d+)/.exec(fake.requests[0]!.user)![1]);
    expect(sent).toBeLessThan(chunks);
    expect(error.scope).toBe('call');
    expect(error.used).toBe(fake.requests.reduce((sum, request) => sum + request.promptTokens + 5, 0));
    expect(error.used + error.needed).toBeGreaterThan(maxTokens);
  });

  it('refuses a malformed budget with a typed error', async () => {
    await expect(stagehand.extract('x', { budget: { maxTokens: -1 } })).rejects.toThrow(InvalidOptionError);
    await expect(stagehand.extract('x', { budget: { account: {} as never } })).rejects.toThrow(/TokenAccount/);
    await expect(stagehand.extract('x', { budget: { totalTokens: 5 } as never })).rejects.toThrow(/totalTokens/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("the Sdk's budget", () => {
  let sdk: Sdk;
  const shared = account();
  beforeAll(async () => {
    sdk = new Sdk(sdkOptions({ model: model(), budget: { maxTokens: 300, totalTokens: 100_000, account: shared, maxOutputTokens: 100 } }));
    await sdk.init();
  });
  afterAll(() => sdk?.close());

  it("applies its maxTokens to every call, unless the call gives its own; its account and the call's are both charged", async () => {
    await sdk.context.pages()[0]!.goto(servers.a.url('extract-shop.html'));
    const error = await refusal(sdk.extract('Which products are listed?'));
    expect(error).toMatchObject({ scope: 'call', limit: 300 });
    expect(fake.requests).toHaveLength(0);
    const own = account();
    fake.script([{ json: { extraction: 'Widgets' }, completionTokens: 9 }]);
    expect(await sdk.extract('Which products are listed?', { budget: { maxTokens: 20_000, account: own } })).toEqual({
      extraction: 'Widgets',
    });
    expect(fake.requests[0]!.body.max_output_tokens).toBe(100);
    expect(own.spent).toEqual([reported(fake.requests[0]!, 9)]);
    expect(shared.spent).toEqual([reported(fake.requests[0]!, 9)]);
  });

  it('stops at totalTokens over all its calls', async () => {
    await sdk.context.pages()[0]!.goto(servers.a.url('extract-shop.html'));
    const probe = await refusal(sdk.extract('Which products are listed?', { budget: { maxTokens: 1 } }));
    // A new Sdk whose total fits exactly one such request.
    const small = new Sdk(sdkOptions({ model: model(), budget: { totalTokens: probe.needed, maxOutputTokens: 100 } }));
    try {
      await small.init();
      await small.context.pages()[0]!.goto(servers.a.url('extract-shop.html'));
      fake.script([{ json: { extraction: 'Widgets' }, completionTokens: 3 }]);
      await small.extract('Which products are listed?');
      const error = await refusal(small.extract('Which products are listed?'));
      expect(error).toMatchObject({ scope: 'sdk', limit: probe.needed, used: fake.requests[0]!.promptTokens + 3 });
      expect(fake.requests).toHaveLength(1);
    } finally {
      await small.close();
    }
  });

  it('is refused with env "HOSTED", whose models run on the service', () => {
    expect(
      () => new Sdk({ env: 'HOSTED', apiKey: 'k', projectId: 'p', hostedApiUrl: 'http://127.0.0.1:9', budget: { maxTokens: 10 } }),
    ).toThrow(/budget.*HOSTED/);
  });
});

describe("an agent run's budget", () => {
  const isLoop = (request: FakeRequest) => request.tools.includes('ariaTree');
  const isVerdict = (request: FakeRequest) => request.tools.length === 1 && request.tools[0] === 'done';
  const call = (name: string, input: unknown = {}): FakeReply => ({ toolCalls: [{ name, input }] });
  beforeEach(() => stagehand.context.pages()[0]!.goto(servers.a.url('agent-form.html')));

  it('stops the run at its budget: the step that would pass it is not sent, and the run rejects', async () => {
    const agent = stagehand.agent({ budget: { maxTokens: 1 } });
    const first = await refusal(agent.execute('Join the club as Ada'));
    expect(fake.requests).toHaveLength(0);
    expect(first.scope).toBe('call');

    // Room for the first step only: it thinks, and the second step is refused.
    fake.script((request) =>
      isLoop(request) ? call('think', { reasoning: 'Let me look at the form first.' }) : { status: 500, error: 'not expected' },
    );
    const error = await refusal(agent.execute({ instruction: 'Join the club as Ada', budget: { maxTokens: first.needed + 10 } }));
    expect(fake.requests.filter(isLoop)).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(error).toMatchObject({ scope: 'call', limit: first.needed + 10 });
    expect(error.used).toBeGreaterThan(fake.requests[0]!.promptTokens);
  });

  it("charges its account for every request of the run: the loop, its tools' act, the verdict", async () => {
    const own = account();
    const idOf = (request: FakeRequest, role: string, name: string) =>
      new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user)![1]!;
    let step = 0;
    fake.script((request) => {
      if (isVerdict(request)) return call('done', { reasoning: 'Clicked Join now.', taskComplete: true });
      if (!isLoop(request))
        return { json: { elementId: idOf(request, 'button', 'Join now'), method: 'click', arguments: [], description: 'click Join now' } };
      return step++ === 0 ? call('act', { action: 'click the Join now button' }) : { text: 'Clicked it.' };
    });
    const result = await stagehand
      .agent()
      .execute({ instruction: 'Click Join now', maxSteps: 5, budget: { account: own, maxTokens: 200_000 } });
    expect(result.success).toBe(true);
    const inner = fake.requests.filter((request) => !isLoop(request) && !isVerdict(request));
    expect(inner).toHaveLength(1);
    expect(fake.requests.filter(isVerdict)).toHaveLength(1);
    expect(own.spent).toHaveLength(fake.requests.length);
    expect(own.spent.map((usage) => usage.promptTokens).sort()).toEqual(fake.requests.map((request) => request.promptTokens).sort());
    for (const usage of own.spent) expect(usage.totalTokens).toBe(usage.promptTokens + usage.completionTokens);
  });
});
