// env "HOSTED": a session of a hosted-browser service. Its browser is attached like any remote
// Chrome, and extract, act and observe run on the service (hosted/client/service.ts).

import { watchedAction } from '../driver/policy.js';
import { parseRef } from '../driver/refs.js';
import { StorageKeeper } from '../driver/storageState.js';
import { xpathOfRef } from '../driver/refXPath.js';
import { WATCH_SOURCE } from '../generated/watch.js';
import { connectHosted, type HostedBrowser } from '../hosted/client/api.js';
import { hostedAct, hostedExtract, hostedObserve, type HostedCall } from '../hosted/client/service.js';
import { InvalidOptionError } from '../errors.js';
import type { ActionInput, SdkOptions } from '../types.js';
import { checkSessionPolicy, DEFAULT_CONNECT_TIMEOUT_MS, nodeReadFile, refuseExtensionOptions, startBridgeOn } from './local.js';
import type { Environment, OperationCall, Operations } from './types.js';

export const hosted: Environment = {
  name: 'HOSTED',
  check: (options) => {
    refuseExtensionOptions(options);
    refuseLocalBehaviour(options);
  },
  // The session's domainPolicy is the one the server is told to enforce: the driver here enforces it too.
  policy: (options, own) => {
    const session = checkSessionPolicy(options);
    return options.hostedSessionCreateParams?.domainPolicy !== undefined ? session : own;
  },
  modelsOnService: true,
  launches: () => false,
  startStep: () => 'Creating a hosted session…',
  noBridge: 'connectURL() is not available here: it needs Node (its WebSocket server) and a local or attached browser.',
  open: async (options, logger, cdpTimeoutMs) => {
    const connectTimeoutMs = options.localBrowserLaunchOptions?.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const browser = await connectHosted(options, logger, connectTimeoutMs, cdpTimeoutMs);
    return {
      browser,
      startBridge: () => startBridgeOn(browser, logger),
      operations: hostedOperations(browser, options),
      closedRootWatch: WATCH_SOURCE,
      readFile: nodeReadFile(),
      storage: StorageKeeper,
      egressProxy: true,
    };
  },
};

/**
 * The operations of a hosted session (env "HOSTED"): extract, act and observe run on the service,
 * next to its browser. A call's own model and serverCache win over the Sdk's. The service acts,
 * while this Sdk's own driver refuses what the domainPolicy refuses, and says so.
 */
export function hostedOperations(browser: HostedBrowser, sdkOptions: SdkOptions): Operations {
  const toCall = ({ options, model, timeoutMs, page, logger, metrics }: OperationCall): HostedCall => ({
    browser,
    pageId: page.id,
    configured: options.model ?? sdkOptions.model,
    model,
    serverCache: options.serverCache ?? sdkOptions.serverCache ?? true,
    timeoutMs,
    logger,
    metrics,
    instrumentation: page.instrumentation,
    // The public call this one serves: the service's model requests are its, in a trace.
    parent: model?.parentCall ?? page.instrumentation.current(),
  });
  return {
    extract: (call, instruction, schema, selector) => hostedExtract(toCall(call), instruction, schema, selector),
    act: async (call, what, variables) => {
      // Only the action's own fields travel; an id of the page text, which only this Sdk's page
      // scripts know, as the XPath of its element now.
      const sent = 'action' in what ? { action: pick(what.action) } : what;
      if ('action' in sent && parseRef(sent.action.selector))
        sent.action.selector = await xpathOfRef(call.page, sent.action.selector, call.timeoutMs);
      return watchedAction(call.page, call.timeoutMs, () => hostedAct(toCall(call), sent, variables));
    },
    observe: (call, instruction, selector) => hostedObserve(toCall(call), instruction, selector),
  };
}

/** What act(), observe() and the model requests take from this Sdk does not travel to the service, which runs them. */
function refuseLocalBehaviour({ systemPrompt, selfHeal, domSettleTimeout }: SdkOptions): void {
  const given =
    systemPrompt !== undefined
      ? 'systemPrompt'
      : selfHeal === false
        ? 'selfHeal: false'
        : domSettleTimeout !== undefined
          ? 'domSettleTimeout'
          : undefined;
  if (given) {
    throw new InvalidOptionError(
      `${given} is not available with env "HOSTED": extract, act and observe run on the service, with its own settings. Leave it out, or use env "LOCAL".`,
    );
  }
}

function pick({ selector, description, method, arguments: args }: ActionInput): ActionInput {
  return { selector, description, method, arguments: args };
}
