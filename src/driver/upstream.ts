// What a hosted server's egress proxy says in place of a site that failed it (no connection in
// time, no answer within its limit, a refused or reset connection): goto() raises that, rather
// than return the proxy's 504 or 502 page as if the site had answered so. Only a hosted session
// passes such a proxy: tendril/extension's bundle leaves this module out (scripts/extension-bundle.mjs).

import { NavigationError, TimeoutError } from '../errors.js';
import type { NavigationResponse } from './response.js';

/**
 * The header of the proxy's own answer: `response-timeout 60000`, `connect-timeout 15000`,
 * `refused ECONNREFUSED`, `failed ECONNRESET`. The proxy drops it from sites' answers, so a site
 * cannot pose as a failure.
 */
export const UPSTREAM_ERROR_HEADER = 'x-tendril-upstream-error';

/** The error the proxy reported for this navigation's document, if it did: a timeout is a TimeoutError, as when goto() runs out of time. */
export function upstreamFailure(response: NavigationResponse | null, url: string): NavigationError | TimeoutError | undefined {
  const said = response?.headers()[UPSTREAM_ERROR_HEADER];
  if (!said) return undefined;
  const [kind, detail = ''] = said.split(' ');
  const host = (() => {
    try {
      return new URL(response!.url()).host;
    } catch {
      return 'the server';
    }
  })();
  const ms = Number(detail);
  if (kind === 'response-timeout') {
    return new TimeoutError(
      `Navigation to ${url} timed out: ${host} did not answer within ${ms} ms, the hosted server's limit for an answer (its HOSTED_RESPONSE_TIMEOUT_MS). ` +
        'The server is slow or hung; try again later, or ask the operator for a longer limit.',
      ms,
    );
  }
  if (kind === 'connect-timeout') {
    return new TimeoutError(
      `Navigation to ${url} timed out: ${host} did not accept a connection within ${ms} ms (the hosted server's HOSTED_CONNECT_TIMEOUT_MS). ` +
        'The host is down or unreachable from the hosted server.',
      ms,
    );
  }
  if (kind === 'refused')
    return new NavigationError(
      `Navigation to ${url} failed: ${host} refused the connection (net::ERR_CONNECTION_REFUSED, seen by the hosted server's egress proxy). Check the URL and that the server is running.`,
      url,
    );
  return new NavigationError(
    `Navigation to ${url} failed: the connection to ${host} failed before it answered (${detail || 'reset'}, seen by the hosted server's egress proxy). Check that the server is running.`,
    url,
  );
}

/** Only a proxy fails a tunnel, and Chrome does not show why (a hosted server's log does). */
export function tunnelHint(errorText: string): string {
  return errorText === 'net::ERR_TUNNEL_CONNECTION_FAILED'
    ? ': the proxy could not connect to the host (refused, unreachable, or no connection in time)'
    : '';
}
