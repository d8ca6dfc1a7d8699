// The model endpoints the server calls for its clients (extract/act/observe on a session, and
// POST /v1/model) are held to the same rule as the sessions' browsers: the public internet only,
// unless HOSTED_ALLOW_NETWORKS opens more. Otherwise a `baseURL` (or a local provider's default,
// 127.0.0.1) would make the server POST to its own machine or network, and echo what answered.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { parseModelConfiguration } from '../../llm/config.js';
import { endpointOf } from '../../llm/providers.js';
import type { ModelConfiguration } from '../../types.js';
import { withDeadline } from '../../util/time.js';
import type { NetworkRules } from './networks.js';
import { apiError } from './sessions.js';

const LOOKUP_TIMEOUT_MS = 5000;

/** Rejects (403) when the model the body names would be called at an address the rules refuse. */
export async function checkModelEndpoint(model: unknown, rules: NetworkRules): Promise<void> {
  if (rules.open || model === undefined) return;
  let endpoint: string | undefined;
  try {
    const spec = parseModelConfiguration((typeof model === 'string' ? model : { ...(model as object) }) as ModelConfiguration);
    endpoint = spec && endpointOf(spec);
  } catch {
    return; // a bad model is the caller's error, reported where it is used
  }
  if (!endpoint || !URL.canParse(endpoint)) return;
  const host = new URL(endpoint).hostname.replace(/^\[(.*)\]$/, '$1');
  if (rules.allowsName(host)) return;
  let addresses: string[];
  try {
    addresses = isIP(host)
      ? [host]
      : (await withDeadline(lookup(host, { all: true }), LOOKUP_TIMEOUT_MS, `Resolving ${host}`)).map((entry) => entry.address);
  } catch (error) {
    throw apiError('bad_request', `The model endpoint ${host} could not be resolved: ${(error as Error).message}`);
  }
  for (const address of addresses) {
    const why = rules.refusal(address);
    if (why) {
      throw apiError(
        'forbidden',
        `The model endpoint ${host} is refused: ${why}. This server calls models on the public internet only; ` +
          'its operator can open a range or host with HOSTED_ALLOW_NETWORKS.',
      );
    }
  }
}
