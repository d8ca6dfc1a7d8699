// Stagehand 3's context.setDomainPolicy / getDomainPolicy on real Chromium: a policy set, changed
// and lifted while pages are open, in Stagehand's form and in Tendril's, reaching the sessions a
// page already has (its out-of-process iframes') and those that come later. The fixture servers'
// request logs say what left the browser.

import { describe, expect, it } from 'vitest';
import { DomainPolicyError, InvalidOptionError, type Frame, type Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

function oopFrame(page: Page): Frame {
  const frame = page.frames().find((each) => each.url().includes('/context-oop.html'));
  if (!frame)
    throw new Error(
      `no out-of-process frame: ${page
        .frames()
        .map((each) => each.url())
        .join(', ')}`,
    );
  return frame;
}

/** Fetches `url` from inside `frame` (no-cors: the answer is opaque, only whether it left matters). */
function fetchFrom(frame: Frame, url: string): Promise<string> {
  return frame.evaluate(
    (target: string) =>
      fetch(target, { mode: 'no-cors' }).then(
        () => 'sent',
        () => 'failed',
      ),
    url,
  );
}

describe('setDomainPolicy', () => {
  it('sets, changes and lifts the policy of open pages and their out-of-process frames', async () => {
    const { page, sdk, servers } = fixture;
    const context = sdk.context;
    expect(context.getDomainPolicy()).toBeNull();
    await page.goto(servers.a.url('/context-frames.html'));
    const oop = oopFrame(page);

    // Stagehand's form; the out-of-process frame (localhost) was adopted before there was a guard.
    await context.setDomainPolicy({ blockedDomains: ['127.0.0.1'], allowedDomains: [] });
    expect(context.getDomainPolicy()).toEqual({ blockedDomains: ['127.0.0.1'] });
    expect(await fetchFrom(oop, servers.a.url('/leaf.html?from=oop-blocked'))).toBe('failed');
    expect(servers.a.requests.some((line) => line.includes('from=oop-blocked'))).toBe(false);
    await expect(page.goto(servers.a.url('/leaf.html'))).rejects.toThrow(DomainPolicyError);
    await expect(context.newPage(servers.a.url('/leaf.html'))).rejects.toThrow(/refused by the domainPolicy/);
    // A page opened now on an allowed host is guarded from its first request.
    const other = await context.newPage(servers.b.url('/leaf.html'));
    await other.waitForLoadState('load');
    expect(await fetchFrom(other.mainFrame(), servers.a.url('/leaf.html?from=new-page'))).toBe('failed');
    expect(servers.a.requests.some((line) => line.includes('from=new-page'))).toBe(false);

    // Changed, in Tendril's form: the other host is refused now, the first one allowed again.
    await context.setDomainPolicy({ block: ['localhost'] });
    expect(context.getDomainPolicy()).toEqual({ blockedDomains: ['localhost'] });
    expect(await fetchFrom(page.mainFrame(), servers.b.url('/leaf.html?from=top-blocked'))).toBe('failed');
    expect(await fetchFrom(oop, servers.a.url('/leaf.html?from=oop-allowed'))).toBe('sent');
    expect(servers.a.requests.some((line) => line.includes('from=oop-allowed'))).toBe(true);
    expect(servers.b.requests.some((line) => line.includes('from=top-blocked'))).toBe(false);

    // An allow list: only 127.0.0.1.
    await context.setDomainPolicy({ allowedDomains: ['127.0.0.1'] });
    expect(context.getDomainPolicy()).toEqual({ allowedDomains: ['127.0.0.1'] });
    await expect(other.goto(servers.b.url('/leaf.html?again'))).rejects.toThrow(DomainPolicyError);
    await page.goto(servers.a.url('/leaf.html?allowed'));

    // Lifted: everything goes again, pages opened before and after.
    await context.setDomainPolicy(null);
    expect(context.getDomainPolicy()).toBeNull();
    await other.goto(servers.b.url('/leaf.html?lifted'));
    await page.goto(servers.a.url('/context-frames.html'));
    expect(await fetchFrom(oopFrame(page), servers.a.url('/leaf.html?from=lifted'))).toBe('sent');
    const later = await context.newPage(servers.b.url('/leaf.html?later'));
    await later.waitForLoadState('load');
    expect(await later.title()).toBe('Leaf');
    await Promise.all([other.close(), later.close()]);
  });

  it('refuses a malformed policy with InvalidOptionError, leaving the one in force', async () => {
    const { page, sdk, servers } = fixture;
    const context = sdk.context;
    await context.setDomainPolicy({ blockedDomains: ['blocked.localhost'] });
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /pass \{ allowedDomains\?, blockedDomains\? \}.*or null to lift the policy/],
      ['example.org', /pass \{ allowedDomains\?/],
      [{ allowedDomains: 'example.org' }, /allowedDomains must be an array/],
      [
        { allowedDomains: ['https://example.org/'] },
        /setDomainPolicy: allowedDomains has "https:\/\/example\.org\/", which is not a host pattern/,
      ],
      [{ blockedDomains: ['x.org'], allow: ['y.org'] }, /takes `allowedDomains` and `blockedDomains`, not `allow`/],
      [{ allow: [] }, /domainPolicy\.allow is empty/],
    ];
    for (const [policy, message] of cases) {
      const error = await context.setDomainPolicy(policy as never).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(policy)).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(message);
    }
    expect(context.getDomainPolicy()).toEqual({ blockedDomains: ['blocked.localhost'] });
    await page.goto(servers.a.url('/leaf.html'));
    await context.setDomainPolicy(null);
  });
});
