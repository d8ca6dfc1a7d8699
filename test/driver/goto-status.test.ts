// page.gotoStatus(): a batch job's goto, which needs only the document's HTTP status and so leaves
// Chrome's Network domain off (src/driver/navigation.ts). Each test opens a tab of its own: a tab
// that once had goto() has the domain on for good.
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { freePort } from '../support/redis.js';

const fixture = useBrowser();
const opened: Page[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((page) => page.close()));
});

/** A fresh tab, and how many requests Chrome reported on its session while `work` ran. */
async function reported<T>(work: (page: Page) => Promise<T>): Promise<{ result: T; page: Page; requests: number }> {
  const page = await fixture.sdk.context.newPage();
  opened.push(page);
  let requests = 0;
  const off = page.session.on('Network.requestWillBeSent', () => void requests++);
  try {
    return { result: await work(page), page, requests };
  } finally {
    off();
  }
}

describe('page.gotoStatus', () => {
  it("gives the document's status, waits as goto() does, and leaves Chrome's Network domain off", async () => {
    const url = fixture.servers.a.url('/frames.html');
    const { result, page, requests } = await reported((tab) => tab.gotoStatus(url, { timeoutMs: 20_000 }));
    expect(result).toBe(200);
    expect(requests).toBe(0);
    // Waited as the default goto does: the frames' documents are in and read.
    expect(page.url()).toBe(url);
    expect((await fixture.sdk.extract({ page, timeout: 10_000 })).pageText).toContain('leaf text');
    // goto() on the same kind of tab does turn it on: the count above could have been otherwise.
    const withGoto = await reported((tab) => tab.goto(url, { timeoutMs: 20_000 }));
    expect(withGoto.result?.status()).toBe(200);
    expect(withGoto.requests).toBeGreaterThan(0);
  });

  it('gives the error statuses a job fails on, and the status after a redirect', async () => {
    for (const status of [404, 500]) {
      const { result } = await reported((tab) => tab.gotoStatus(fixture.servers.a.url(`/leaf.html?status=${status}`)));
      expect(result).toBe(status);
    }
    const target = fixture.servers.b.url('/leaf.html');
    const redirected = await reported((tab) =>
      tab.gotoStatus(fixture.servers.a.url(`/redirect-to?to=${encodeURIComponent(target)}`), { timeoutMs: 20_000 }),
    );
    expect(redirected.result).toBe(200);
    expect(redirected.page.url()).toBe(target);
  });

  it('gives the status of a page that opened a dialog while it loaded, the dialog dismissed as goto() dismisses it', async () => {
    const { result, page } = await reported((tab) => tab.gotoStatus(fixture.servers.a.url('/dialog-load.html'), { timeoutMs: 10_000 }));
    // Read, not given up on: a status read that a dialog held would have run out and given 0.
    expect(result).toBe(200);
    expect((await fixture.sdk.extract({ page, timeout: 5000 })).pageText).toContain('After the alert');
  });

  it('gives 0 where nothing was fetched, and fails as goto() does on a server that is not there', async () => {
    expect((await reported((tab) => tab.gotoStatus('data:text/html,<p>inline</p>'))).result).toBe(0);
    expect((await reported((tab) => tab.gotoStatus('about:blank'))).result).toBe(0);
    const port = await freePort();
    const refused = reported((tab) => tab.gotoStatus(`http://127.0.0.1:${port}/nothing-listens`, { timeoutMs: 10_000 }));
    await expect(refused).rejects.toMatchObject({ name: 'NavigationError', message: expect.stringContaining('ERR_CONNECTION_REFUSED') });
  });
});
