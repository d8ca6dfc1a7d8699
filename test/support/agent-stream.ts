// A streamed agent run cut short while its model has not answered: the fake model server hangs
// on the request, the run's signal is aborted once the request arrived, and the run's `result`
// must reject with AgentAbortError (the stream is read to its end meanwhile, as a caller would).

import { expect } from 'vitest';
import { AgentAbortError } from '../../src/index.js';
import type { FakeModel } from './fake-model.js';

interface StreamingAgent {
  execute(options: { instruction: string; signal: AbortSignal }): Promise<unknown>;
}

export async function abortWhileModelThinks(agent: StreamingAgent, fake: FakeModel, instruction: string): Promise<void> {
  const controller = new AbortController();
  const run = (await agent.execute({ instruction, signal: controller.signal })) as {
    fullStream: AsyncIterable<unknown>;
    result: Promise<unknown>;
  };
  const drained = (async () => {
    for await (const _ of run.fullStream);
  })();
  await fake.nextRequest();
  controller.abort('stop streaming');
  await expect(run.result).rejects.toBeInstanceOf(AgentAbortError);
  await drained.catch(() => {});
}
