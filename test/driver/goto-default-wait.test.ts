// What the default goto (no waitUntil) waits for once the main document is interactive: every
// frame's document, and `load` while the page makes progress (docs/browsers.md, "When it resolves").
import { describe, expect, it } from 'vitest';
import { LOAD_QUIET_MS } from '../../src/driver/navigation.js';
import type { LogLine } from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const lines: LogLine[] = [];
const fixture = useBrowser({ verbose: 1, logger: (line) => lines.push(line) });

const text = async () => (await fixture.sdk.extract({ page: fixture.page, timeout: 5000 })).pageText;
/** The line the default goto logs when it stops waiting for `load` (none when `load` came). */
const stillLoading = () => lines.filter((line) => /still loading/i.test(line.message));

describe('the default goto', () => {
  it("takes Chrome's error page that replaced the navigated document as the document it waits for", async () => {
    lines.length = 0;
    await fixture.page.goto(fixture.servers.a.url('/goto-replaced-by-error.html'), { timeoutMs: 20_000 });
    expect(fixture.page.url()).toMatch(/^chrome-error:/);
    // The error page fired load: the wait saw it, instead of waiting on the replaced document.
    expect(stillLoading()).toEqual([]);
  });

  it('waits for a frame whose document is on its way, then stops soon once only an image holds load', async () => {
    lines.length = 0;
    await fixture.page.goto(fixture.servers.a.url('/goto-image-held.html'), { timeoutMs: 20_000 });
    const [line] = stillLoading();
    expect(line?.auxiliary?.stillLoading).toEqual([fixture.servers.a.url('/goto-image-held.html')]);
    // Every frame's document was in: the short window ended the wait, not the one for documents.
    expect(line?.auxiliary?.documentsOnTheirWay).toEqual([]);
    expect(line?.auxiliary?.waitedMs).toBeLessThan(LOAD_QUIET_MS);
    const pageText = await text();
    expect(pageText).toContain('The article text.');
    expect(pageText).toContain('leaf text');
  });

  it('says which frame it stopped waiting for when a frame never answers', async () => {
    lines.length = 0;
    await fixture.page.goto(fixture.servers.a.url('/frame-hanging.html'), { timeoutMs: 20_000 });
    const [line] = stillLoading();
    expect(line?.auxiliary?.documentsOnTheirWay).toHaveLength(1);
    expect(await text()).toContain('leaf text');
  });
});
