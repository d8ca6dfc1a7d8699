// Tendril, straight from the sources in src/.
import { z } from 'zod';
import { Sdk, type ExtractSchema, type LogLine } from '../../../src/index.js';
import { perBuilder, type BenchSession, type DialogSeen, type LibraryAdapter, type SessionOptions } from '../core/adapter.js';
import { clientOptions, type BenchModel, type LaunchSpec } from '../core/config.js';

const schemaFor = perBuilder((build) => build(z) as ExtractSchema);

/**
 * Tendril answers every dialog itself (the user's handler or its default) and logs each answer at
 * level 1: read from that log, so watching adds no handler that would change what it does.
 */
function dialogLog(): { logger: (line: LogLine) => void; seen: DialogSeen[] } {
  const seen: DialogSeen[] = [];
  const logger = (line: LogLine) => {
    if (line.category !== 'dialog') return;
    const { type, message } = (line.auxiliary ?? {}) as { type?: unknown; message?: unknown };
    seen.push({ type: String(type), message: String(message ?? '').slice(0, 100), open: false });
  };
  return { logger, seen };
}

function sessionOf(sdk: Sdk, dialogs?: readonly DialogSeen[]): BenchSession {
  const firstPage = () => {
    const page = sdk.context.pages()[0];
    if (!page) throw new Error('Tendril has no page after init()');
    return page;
  };
  return {
    init: () => sdk.init(),
    goto: async (url) => {
      await firstPage().goto(url, { waitUntil: 'load' });
    },
    gotoDefault: async (url) => {
      await firstPage().goto(url);
    },
    extractText: async () => (await sdk.extract()).pageText,
    extractWithSchema: (instruction, build) => sdk.extract(instruction, schemaFor(build)),
    act: (action) => sdk.act({ ...action, arguments: [...action.arguments] }),
    evaluate: (expression) => firstPage().evaluate<unknown>(expression),
    ...(dialogs ? { dialogs: () => dialogs } : {}),
    close: () => sdk.close(),
  };
}

export function loadTendril(): LibraryAdapter {
  return {
    id: 'tendril',
    label: 'Tendril',
    newSession: (launch: LaunchSpec, options: SessionOptions = {}) => {
      if (!options.watchDialogs) return sessionOf(new Sdk(clientOptions(launch, options.model)));
      const { logger, seen } = dialogLog();
      // Level 1 reaches the callback only; pino stays off (clientOptions).
      return sessionOf(new Sdk({ ...clientOptions(launch, options.model), verbose: 1, logger }), seen);
    },
  };
}

/** Where a Tendril hosted server listens, and a key it accepts. */
export interface HostedEndpoint {
  readonly url: string;
  readonly apiKey: string;
}

/**
 * Tendril in env "HOSTED": init() asks `hosted` for a session (the server launches its browser),
 * and extract(instruction, schema) runs on the server, which calls the model and caches the result.
 * The model's `fetch` stays behind: the server, not this process, sends the model requests.
 */
export function hostedTendrilSession(hosted: HostedEndpoint, model: BenchModel): BenchSession {
  const { modelName, apiKey, baseURL } = model;
  return sessionOf(
    new Sdk({
      env: 'HOSTED',
      apiKey: hosted.apiKey,
      projectId: 'bench',
      hostedApiUrl: hosted.url,
      model: { modelName, apiKey, baseURL },
      verbose: 0,
      disablePino: true,
    }),
  );
}
