// env "HOSTED": a session of a hosted-browser service. Its browser is attached like any remote
// Chrome, and extract, act and observe run on the service (hosted/client/service.ts).

import { WATCH_SOURCE } from '../generated/watch.js';
import { connectHosted } from '../hosted/client/api.js';
import { hostedOperations } from '../hosted/client/service.js';
import { checkSessionPolicy, DEFAULT_CONNECT_TIMEOUT_MS, refuseExtensionOptions, startBridgeOn } from './local.js';
import type { Environment } from './types.js';

export const hosted: Environment = {
  name: 'HOSTED',
  check: refuseExtensionOptions,
  // The session's domainPolicy is the one the server is told to enforce: the driver here enforces it too.
  policy: (options, own) => {
    const session = checkSessionPolicy(options);
    return options.hostedSessionCreateParams?.domainPolicy !== undefined ? session : own;
  },
  modelsOnService: true,
  startStep: () => 'Creating a hosted session…',
  noBridge: 'connectURL() is not available here: it needs Node (its WebSocket server) and a local or attached browser.',
  open: async (options, logger, cdpTimeoutMs) => {
    const connectTimeoutMs = options.localBrowserLaunchOptions?.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const browser = await connectHosted(options, logger, connectTimeoutMs, cdpTimeoutMs);
    return { browser, startBridge: () => startBridgeOn(browser, logger), operations: hostedOperations(browser, options), closedRootWatch: WATCH_SOURCE };
  },
};
