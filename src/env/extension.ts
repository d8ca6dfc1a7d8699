// env "EXTENSION": the user's own tabs, through chrome.debugger, from inside a Chrome extension.
// Nothing here launches, attaches by URL or talks to a hosted service, so tendril/extension, which
// has only this environment, carries none of that.

import { openExtensionBrowser } from '../browser/extension.js';
import { InvalidOptionError } from '../errors.js';
import type { SdkOptions } from '../types.js';
import type { Environment } from './types.js';

export const extension: Environment = {
  name: 'EXTENSION',
  check: checkExtensionOptions,
  policy: (_options, own) => own,
  modelsOnService: false,
  launches: () => false,
  startStep: () => 'Attaching to the extension’s tabs…',
  noBridge:
    'connectURL() is not available in an extension: it serves a WebSocket from Node. Use sdk.context.pages(), or chrome.debugger directly.',
  open: async (options, logger, cdpTimeoutMs) => ({ browser: await openExtensionBrowser(options.extension, logger, cdpTimeoutMs) }),
};

/**
 * The extension debugs the user's own tabs: nothing to launch, attach by URL, or download into, and
 * the hosted settings are for env "HOSTED".
 */
function checkExtensionOptions(options: SdkOptions): void {
  const given = (name: keyof SdkOptions) => options[name] !== undefined;
  if (given('localBrowserLaunchOptions')) {
    throw new InvalidOptionError(
      'localBrowserLaunchOptions is for env "LOCAL": with env "EXTENSION" the extension debugs its own browser\'s tabs. ' +
        'Name them with `extension: { tabIds }` instead.',
    );
  }
  if (given('downloadsPath')) {
    throw new InvalidOptionError(
      'downloadsPath needs Node and a browser of our own; with env "EXTENSION" the user\'s browser keeps its own download ' +
        'settings. Leave it out.',
    );
  }
  for (const name of ['apiKey', 'projectId', 'hostedApiUrl', 'hostedSessionCreateParams', 'serverCache'] as const) {
    if (given(name)) throw new InvalidOptionError(`${name} is for env "HOSTED" (a remote browser); with env "EXTENSION" leave it out.`);
  }
  const tabIds = options.extension?.tabIds;
  if (tabIds !== undefined && (!Array.isArray(tabIds) || tabIds.length === 0 || !tabIds.every((id) => Number.isInteger(id) && id >= 0))) {
    throw new InvalidOptionError(
      '`extension.tabIds` must be a non-empty array of tab ids (chrome.tabs.Tab.id), or left out for the active tab.',
    );
  }
}
