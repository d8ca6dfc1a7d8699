// A hosted server for a test, as the tests start one: on a free port, launching the test Chromium
// with the test flags, its log silent. What a suite varies (keys, limits, networks) is its `env`.
import { readServerConfig } from '../../src/hosted/server/config.js';
import { startHostedServer, type HostedServer } from '../../src/hosted/server/http.js';
import { Sdk } from '../../src/index.js';
import { Logger } from '../../src/logger.js';
import { CHROME, TEST_ARGS } from '../helpers.js';

/** `env` adds to the environment a test's server starts from, or overrides it; `logger` sees its log (silent without). */
export function startTestHostedServer(env: Record<string, string>, logger?: Logger): Promise<HostedServer> {
  const config = readServerConfig({ PORT: '0', CHROME_PATH: CHROME, CHROME_ARGS: TEST_ARGS.join(' '), ...env });
  return startHostedServer(config, logger ?? new Logger({ verbose: 0, disablePino: true }));
}

/** A client's session on `server`, initialised, and its first page. */
export async function hostedSession(server: HostedServer, apiKey: string, projectId = 'p') {
  const sdk = new Sdk({ env: 'HOSTED', apiKey, projectId, hostedApiUrl: server.url, verbose: 0, disablePino: true });
  await sdk.init();
  return { sdk, page: sdk.context.pages()[0]! };
}
