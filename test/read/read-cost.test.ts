// What a read sends the browser: closed-root scans only where the watch says a root may hide, iframe elements looked up once.
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { excerpt } from '../support/snapshot-text.js';

// What the browser was asked, at verbose 2: one line per CDP command sent ("→ <session> <method>").
const sent: string[] = [];
const fixture = useBrowser({ verbose: 2, logger: (line: LogLine) => void (line.category === 'cdp' && sent.push(line.message)) });

/** The commands one extract() sends, and its page text. */
async function extractCounting(): Promise<{ pageText: string; commands: string[] }> {
  sent.length = 0;
  const { pageText } = await fixture.sdk.extract({ page: fixture.page });
  return { pageText, commands: sent.filter((line) => line.startsWith('→')) };
}

const wholeScan = (commands: string[]) => commands.filter((line) => line.endsWith('DOM.describeNode')).length;

describe('the closed-root watch', () => {
  it('reads closed roots no element gives away, attached and parsed by script', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-shadow-watch.html'));
    const { pageText } = await extractCounting();
    expect(pageText, excerpt(pageText)).toMatch(/before words[\s\S]*middle words[\s\S]*after words/);
    expect(pageText, excerpt(pageText)).toMatch(/declarative words[\s\S]*parsed light/);
  });

  it('does not scan a document that attached no closed root, and scans again once it attaches one', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-shadow-watch.html?closed=0'));
    const first = await extractCounting();
    expect(first.pageText).toContain('middle words');
    expect(first.pageText).not.toContain('before words');
    expect(wholeScan(first.commands), first.commands.join('\n')).toBe(0);

    await fixture.page.evaluate(() => (window as unknown as { attachLate(): void }).attachLate());
    const second = await extractCounting();
    expect(second.pageText, excerpt(second.pageText)).toMatch(/attached later[\s\S]*late light/);
    expect(wholeScan(second.commands)).toBeGreaterThan(0);

    // Known now: the next read neither scans nor loses it.
    const third = await extractCounting();
    expect(third.pageText).toMatch(/attached later[\s\S]*late light/);
    expect(wholeScan(third.commands), third.commands.join('\n')).toBe(0);
  });

  it('leaves the page nothing to see: no binding, and attachShadow still looks native', async () => {
    await fixture.page.goto(fixture.servers.a.url('/snap-shadow-watch.html'));
    const look = await fixture.page.evaluate(() => (window as unknown as { firstLook: unknown }).firstLook);
    expect(look).toEqual({ odd: [], native: true, name: 'attachShadow' });
    // And closed stays closed for the page.
    expect(await fixture.page.evaluate(() => document.getElementById('slotted')!.shadowRoot)).toBeNull();
  });
});

describe('what a read after goto has left to do', () => {
  it("looks up each iframe's element once per document, not on every read", async () => {
    sent.length = 0;
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    const children = fixture.page.frames().filter((frame) => frame.parentFrame());
    expect(children.length).toBeGreaterThanOrEqual(4);
    for (let read = 0; read < 3; read++) {
      const { pageText } = await fixture.sdk.extract({ page: fixture.page });
      expect(pageText).toContain('from srcdoc');
    }
    const lookups = sent.filter((line) => line.startsWith('→') && line.endsWith('DOM.getFrameOwner'));
    expect(lookups).toHaveLength(children.length);
  });
});
