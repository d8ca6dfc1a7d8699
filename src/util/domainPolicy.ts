// domainPolicy: which hosts pages may reach. Shared by the local driver (which enforces it on its own
// CDP sessions) and the hosted server (which enforces it in its egress proxy), so both read a
// pattern the same way. No Node built-ins: this runs in edge runtimes and extensions too.

import { DomainPolicyError, InvalidOptionError } from '../errors.js';
import type { DomainPolicy } from '../types.js';

/** A policy checked and normalised: lower-case ASCII (punycode) hosts, `*.` kept as the only wildcard. */
export interface CheckedPolicy {
  allow?: string[];
  block?: string[];
}

const LABELS = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** The ASCII host of a pattern's host part, or undefined when it is not a host (scheme, path, port...). */
function asciiHost(text: string): string | undefined {
  if (/[/:?#@\s]/.test(text) && !/^\[[0-9a-f:.]+\]$/i.test(text)) {
    // A bare IPv6 address is written without brackets in a list of hosts.
    if (/^[0-9a-f:.]+$/i.test(text) && text.includes(':')) return asciiHost(`[${text}]`);
    return undefined;
  }
  try {
    const host = new URL(`http://${text}/`).hostname;
    return host.startsWith('[') || LABELS.test(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

function checkList(list: unknown, name: string): string[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list))
    throw new InvalidOptionError(`domainPolicy.${name} must be an array of host patterns such as "example.org" or "*.example.org".`);
  return list.map((item) => {
    const raw = typeof item === 'string' ? item.trim().toLowerCase().replace(/\.$/, '') : '';
    const wildcard = raw.startsWith('*.');
    const host = asciiHost(wildcard ? raw.slice(2) : raw);
    if (!host) {
      throw new InvalidOptionError(
        `domainPolicy.${name} has ${JSON.stringify(item)}, which is not a host pattern: write a host ("example.org"), ` +
          '"*.example.org" for it and its subdomains, or an IP address; no scheme, port or path.',
      );
    }
    return wildcard ? `*.${host}` : host;
  });
}

/** Checks a policy given by the caller; undefined when there is none. */
export function checkDomainPolicy(policy: unknown): CheckedPolicy | undefined {
  if (policy === undefined) return undefined;
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy)) {
    throw new InvalidOptionError('domainPolicy must be an object: { allow?: string[], block?: string[] }.');
  }
  const unknown = Object.keys(policy).filter((key) => key !== 'allow' && key !== 'block');
  if (unknown.length)
    throw new InvalidOptionError(`domainPolicy takes only \`allow\` and \`block\`, not ${unknown.map((key) => `\`${key}\``).join(', ')}.`);
  const { allow, block } = policy as DomainPolicy;
  const checked: CheckedPolicy = {};
  const allowed = checkList(allow, 'allow');
  const blocked = checkList(block, 'block');
  if (allowed) {
    if (!allowed.length)
      throw new InvalidOptionError(
        'domainPolicy.allow is empty, so no page could load: list the hosts to allow, or leave `allow` out to allow every host.',
      );
    checked.allow = allowed;
  }
  if (blocked?.length) checked.block = blocked;
  return checked.allow || checked.block ? checked : undefined;
}

function matches(pattern: string, host: string): boolean {
  if (!pattern.startsWith('*.')) return pattern === host;
  const base = pattern.slice(2);
  return host === base || host.endsWith(`.${base}`);
}

/** Whether the policy lets pages reach `host` (an ASCII host name as URL.hostname gives it). */
export function hostAllowed(policy: CheckedPolicy, host: string): boolean {
  const normal = host.toLowerCase().replace(/\.$/, '');
  if (policy.block?.some((pattern) => matches(pattern, normal))) return false;
  return !policy.allow || policy.allow.some((pattern) => matches(pattern, normal));
}

/** The policy in a few words, for messages and logs. */
export function describePolicy(policy: CheckedPolicy): string {
  const parts: string[] = [];
  if (policy.allow) parts.push(`allow ${policy.allow.join(', ')}`);
  if (policy.block) parts.push(`block ${policy.block.join(', ')}`);
  return parts.join('; ');
}

/**
 * The host of `url` when the policy refuses it; undefined when the URL is allowed or has no host
 * to judge (about:, data:, blob:, javascript:, file:).
 */
export function refusedHost(policy: CheckedPolicy | undefined, url: string): string | undefined {
  if (!policy) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!/^(https?|wss?|ftp):$/.test(parsed.protocol) || !parsed.hostname) return undefined;
  return hostAllowed(policy, parsed.hostname) ? undefined : parsed.hostname;
}

export function domainPolicyError(policy: CheckedPolicy, url: string, host: string, what = 'Navigation'): DomainPolicyError {
  return new DomainPolicyError(
    `${what} to ${host} was refused by the domainPolicy (${describePolicy(policy)}): ${url.slice(0, 200)}. ` +
      'Add the host to `allow` (or take it out of `block`) to let pages reach it.',
    url,
    host,
    policy,
  );
}
