// The trace's network list and out-of-process frames: a cross-origin iframe (its own process under
// --site-per-process) is followed from before its target runs, so its own document and what that
// document loads are in the list, each once, as entries of that frame.

import { describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers.js';
import { traceNetwork } from '../support/trace-file.js';

const fixture = useBrowser();

describe("a trace's network list", () => {
  it("holds an out-of-process frame's own document and its subresource, recorded from before the goto", async () => {
    const { sdk, page, servers } = fixture;
    await sdk.context.tracing.start();
    await page.goto(servers.a.url('trace-oop.html'));
    const frame = page.frames().find((each) => each.url().startsWith(servers.b.origin))!;
    expect(frame, 'the frame of the other origin').toBeDefined();
    expect(frame.isOutOfProcess()).toBe(true);
    expect(await frame.locator('#ran').textContent()).toBe('true');
    const entries = traceNetwork(await sdk.context.tracing.stop());

    const urls = entries.map((entry) => entry.request.url as string);
    expect(urls).toContain(servers.a.url('trace-oop.html'));
    const documentUrl = servers.b.url('trace-oop-frame.html');
    const scriptUrl = servers.b.url('marker.js?in=trace-oop-frame');
    for (const url of [documentUrl, scriptUrl])
      expect(
        urls.filter((each) => each === url),
        url,
      ).toHaveLength(1);
    const document = entries.find((entry) => entry.request.url === documentUrl)!;
    expect(document).toMatchObject({ _resourceType: 'document', _frameref: frame.id, response: { status: 200 } });
    const script = entries.find((entry) => entry.request.url === scriptUrl)!;
    expect(script).toMatchObject({ _resourceType: 'script', _frameref: frame.id, response: { status: 200 } });
  }, 60_000);
});
