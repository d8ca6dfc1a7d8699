// A domainPolicy set, changed or lifted while pages are open (context.setDomainPolicy), in
// Stagehand's form ({ allowedDomains, blockedDomains }) or Tendril's ({ allow, block }). A context
// without a policy has no guard until the first one is set; from then on the guard stays on the
// sessions it holds (with no policy it lets every request through) and goes on every new session
// only while a policy is set.

import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError } from '../errors.js';
import type { StagehandDomainPolicy } from '../types.js';
import { checkDomainPolicy, type CheckedPolicy } from '../util/domainPolicy.js';
import type { DomainGuard, GuardedPage } from './policy.js';
import { sessionGone } from './sessionExtras.js';

const STAGEHAND_KEYS: Record<string, 'allow' | 'block'> = { allowedDomains: 'allow', blockedDomains: 'block' };

/** The policy `setDomainPolicy(policy)` asks for, checked; undefined for none (null, or only empty lists). */
export function checkPolicyChange(policy: unknown): CheckedPolicy | undefined {
  if (policy === null) return undefined;
  // Clearing is explicit: an unset variable passed by mistake does not lift the policy.
  if (typeof policy !== 'object' || Array.isArray(policy)) {
    throw new InvalidOptionError(
      'setDomainPolicy: pass { allowedDomains?, blockedDomains? } (or { allow?, block? }), or null to lift the policy.',
    );
  }
  const keys = Object.keys(policy);
  const stagehand = keys.some((key) => key in STAGEHAND_KEYS);
  if (!stagehand) return checkDomainPolicy(policy);
  const converted: Record<string, unknown> = {};
  for (const key of keys) {
    const to = STAGEHAND_KEYS[key];
    if (!to) throw new InvalidOptionError(`setDomainPolicy takes \`allowedDomains\` and \`blockedDomains\`, not \`${key}\`.`);
    const list = (policy as StagehandDomainPolicy)[key as keyof StagehandDomainPolicy];
    if (list !== undefined && !Array.isArray(list))
      throw new InvalidOptionError(`setDomainPolicy: ${key} must be an array of host patterns.`);
    // An empty list leaves that side out, as in Stagehand.
    if (list?.length) converted[to] = list;
  }
  try {
    return checkDomainPolicy(converted);
  } catch (error) {
    const message = (error as Error).message
      .replace('domainPolicy.allow', 'allowedDomains')
      .replace('domainPolicy.block', 'blockedDomains');
    throw new InvalidOptionError(`setDomainPolicy: ${message}`);
  }
}

/** A policy in Stagehand's form (getDomainPolicy); null for none. */
export function stagehandPolicy(policy: CheckedPolicy | undefined): StagehandDomainPolicy | null {
  if (!policy || (!policy.allow && !policy.block)) return null;
  return { ...(policy.allow && { allowedDomains: [...policy.allow] }), ...(policy.block && { blockedDomains: [...policy.block] }) };
}

/** What a policy change needs of a page: its guard hook (GuardedPage) and its live sessions. */
export interface PolicyPage extends GuardedPage {
  readonly frameManager: GuardedPage['frameManager'] & { sessions(): CdpSession[] };
}

/** Puts every session of `pages` under `guard` that is not yet, and judges by `policy` from now on. */
export async function applyPolicy(guard: DomainGuard, policy: CheckedPolicy, pages: readonly PolicyPage[]): Promise<void> {
  const setup: Promise<unknown>[] = [guard.setPolicy(policy)];
  for (const page of pages) {
    for (const session of page.frameManager.sessions()) {
      // A session that goes away meanwhile needs no guard.
      if (!guard.guards(session))
        setup.push(guard.guard(session, page).catch((error) => (sessionGone(error) ? undefined : Promise.reject(error))));
    }
  }
  await Promise.all(setup);
}
