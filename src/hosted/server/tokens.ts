// connectUrl tokens: "<session id>.<expiry ms>.<HMAC>", so a token opens one session's browser,
// until it expires, and cannot be forged or moved to another session.

import { createHmac, timingSafeEqual } from 'node:crypto';

function mac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function signToken(secret: string, sessionId: string, expiresAt: number): string {
  const payload = `${sessionId}.${expiresAt}`;
  return `${payload}.${mac(secret, payload)}`;
}

/** True when the token was signed by us, for this session, and has not expired. */
export function verifyToken(secret: string, token: string, sessionId: string, now = Date.now()): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [id, expires, signature] = parts as [string, string, string];
  const expected = Buffer.from(mac(secret, `${id}.${expires}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  return id === sessionId && Number(expires) > now;
}

/** Constant-time membership: whether `key` is one of `keys`. */
export function isKnownKey(keys: string[], key: string | undefined): boolean {
  if (!key) return false;
  const given = Buffer.from(key);
  let found = false;
  for (const each of keys) {
    const candidate = Buffer.from(each);
    if (candidate.length === given.length && timingSafeEqual(candidate, given)) found = true;
  }
  return found;
}
