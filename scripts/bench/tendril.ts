// Tendril, straight from the sources in src/.
import { Sdk } from '../../src/index.js';
import type { BenchSession, LibraryAdapter } from './adapter.js';
import { clientOptions, type LaunchSpec } from './config.js';

export function loadTendril(): LibraryAdapter {
  return {
    id: 'tendril',
    label: 'Tendril',
    newSession(launch: LaunchSpec): BenchSession {
      const sdk = new Sdk(clientOptions(launch));
      return {
        init: () => sdk.init(),
        async goto(url) {
          const page = sdk.context.pages()[0];
          if (!page) throw new Error('Tendril has no page after init()');
          await page.goto(url); // waits for load by default
        },
        extractText: async () => (await sdk.extract()).pageText,
        close: () => sdk.close(),
      };
    },
  };
}
