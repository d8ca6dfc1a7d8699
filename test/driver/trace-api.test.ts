// context.tracing's contract besides the viewer (trace-viewer.test.ts): its typed errors, that an
// unwritable path loses nothing, groups, the Stagehand class's context, and what is redacted.

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SdkStateError, TracingStateError, TracingWriteError } from '../../src/index.js';
import { useBrowser } from '../helpers.js';
import { unzip } from '../support/zip.js';

const fixture = useBrowser();
const stagehand = useBrowser({}, { stagehand: true });
const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-trace-api-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

type TraceEvent = Record<string, any>;
function eventsOf(bytes: Uint8Array): { events: TraceEvent[]; network: TraceEvent[]; files: Map<string, Buffer> } {
  const files = unzip(bytes);
  const lines = (name: string) =>
    files
      .get(name)!
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TraceEvent);
  return { events: lines('trace.trace'), network: lines('trace.network'), files };
}

describe('context.tracing', () => {
  it('refuses a second start and a stop without a start with TracingStateError, and the context goes on working', async () => {
    const tracing = fixture.sdk.context.tracing;
    const stopped = await tracing.stop().catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(TracingStateError);
    expect(stopped).toBeInstanceOf(SdkStateError);
    expect((stopped as Error).message).toContain('start() it first');
    await tracing.start();
    const again = await tracing.start().catch((error: unknown) => error);
    expect(again).toBeInstanceOf(TracingStateError);
    expect((again as Error).message).toContain('already records');
    await fixture.page.goto(fixture.servers.a.url('leaf.html'));
    const { events } = eventsOf(await tracing.stop());
    expect(events[0]).toMatchObject({ type: 'context-options', version: 10 });
    expect(events.filter((event) => event.type === 'before').map((event) => event.title)).toEqual([
      `goto ${fixture.servers.a.url('leaf.html')}`,
    ]);
  });

  it('keeps the zip when its path cannot be written: in the TracingWriteError, and for the next stop()', async () => {
    const tracing = fixture.sdk.context.tracing;
    await tracing.start({ title: 'kept' });
    await fixture.page.goto(fixture.servers.a.url('leaf.html'));
    const unwritable = path.join(dir, 'no', 'such', 'folder', 'trace.zip');
    const error = (await tracing.stop({ path: unwritable }).catch((caught: unknown) => caught)) as TracingWriteError;
    expect(error).toBeInstanceOf(TracingWriteError);
    expect(error.path).toBe(unwritable);
    expect(error.message).toContain('Nothing is lost');
    const { events } = eventsOf(error.bytes);
    expect(events[0]).toMatchObject({ type: 'context-options', title: 'kept' });
    // stop() again gives the same zip, to another path or none; then there is nothing left to give.
    const retried = await tracing.stop({ path: path.join(dir, 'kept.zip') });
    expect(retried).toEqual(error.bytes);
    expect(await tracing.stop().catch((caught: unknown) => caught)).toBeInstanceOf(TracingStateError);
  });

  it('nests the calls made inside a group under it, and groups inside groups', async () => {
    const { sdk, page, servers } = fixture;
    await sdk.context.tracing.start();
    await sdk.context.tracing.group('outer');
    await sdk.context.tracing.group('inner');
    await page.goto(servers.a.url('leaf.html'));
    await sdk.context.tracing.groupEnd();
    await page.reload();
    await sdk.context.tracing.groupEnd();
    await page.goBack();
    const { events } = eventsOf(await sdk.context.tracing.stop());
    const byTitle = new Map(events.filter((event) => event.type === 'before').map((event) => [event.title, event]));
    const outer = byTitle.get('outer')!;
    const inner = byTitle.get('inner')!;
    expect(outer.parentId).toBeUndefined();
    expect(inner.parentId).toBe(outer.callId);
    expect(byTitle.get(`goto ${servers.a.url('leaf.html')}`)!.parentId).toBe(inner.callId);
    expect(byTitle.get('reload')!.parentId).toBe(outer.callId);
    expect(byTitle.get('goBack')!.parentId).toBeUndefined();
    // Every action that began has ended.
    const ended = new Set(events.filter((event) => event.type === 'after').map((event) => event.callId));
    for (const event of byTitle.values()) expect(ended.has(event.callId)).toBe(true);
  });

  it('redacts what was typed into a password field, its value attribute, and the Authorization and Cookie headers', async () => {
    const { sdk, page, servers } = fixture;
    await page.setExtraHTTPHeaders({ Authorization: 'Bearer header-secret-0451', 'X-Visible': 'plain-value' });
    try {
      await sdk.context.tracing.start({ snapshots: true });
      await page.goto(servers.a.url('snap-form.html'));
      await page.locator('#pin').fill('typed-pin-4242');
      await page.locator('#later').fill('visible words');
      const bytes = await sdk.context.tracing.stop();
      const { events, network, files } = eventsOf(bytes);
      for (const [name, content] of files) {
        for (const secret of ['typed-pin-4242', 'attr-secret-pw', 'header-secret-0451']) {
          const at = content.indexOf(secret);
          expect(at, `${secret} in ${name}: ${content.subarray(Math.max(0, at - 300), at + 50).toString()}`).toBe(-1);
        }
      }
      const fills = events.filter((event) => event.type === 'before' && event.method === 'fill');
      expect(fills.map((event) => event.params.value)).toEqual(['***', 'visible words']);
      const documentEntry = network.find((event) => event.snapshot.request.url.endsWith('snap-form.html'))!;
      const headers = Object.fromEntries(
        documentEntry.snapshot.request.headers.map(({ name, value }: { name: string; value: string }) => [name.toLowerCase(), value]),
      );
      expect(headers.authorization).toBe('***');
      expect(headers['x-visible']).toBe('plain-value');
    } finally {
      await page.setExtraHTTPHeaders({});
    }
  });

  it("leaves Chrome's DOM agent off after stop(): mutations of the page send Tendril's session no DOM events", async () => {
    const { sdk, page, servers } = fixture;
    // The session's own incoming DOM events (the ones a DOM agent left on sends for every mutation).
    const heard: string[] = [];
    const methods = [
      'DOM.childNodeInserted',
      'DOM.childNodeCountUpdated',
      'DOM.childNodeRemoved',
      'DOM.setChildNodes',
      'DOM.attributeModified',
    ] as const;
    const offs = methods.map((method) => page.session.on(method, () => heard.push(method)));
    try {
      await page.goto(servers.a.url('snap-form.html'));
      await sdk.context.tracing.start({ snapshots: true });
      await page.reload();
      await page.locator('#later').fill('some words');
      await sdk.context.tracing.stop();
      // The events of the mutations come before the evaluate's answer, so once it is back they are all in.
      await page.evaluate(() => {
        const list = document.body.appendChild(document.createElement('ul'));
        for (let index = 0; index < 200; index++) list.appendChild(document.createElement('li')).textContent = String(index);
      });
      expect(heard).toEqual([]);
    } finally {
      for (const off of offs) off();
    }
  });

  it("snapshots a goto's page before it as the page it leaves and after it as the one it loads, also across origins", async () => {
    const { sdk, page, servers } = fixture;
    const first = servers.a.url('leaf.html');
    const second = servers.a.url('snap-form.html');
    const third = servers.b.url('leaf.html');
    await page.goto(first);
    await sdk.context.tracing.start({ snapshots: true });
    await page.goto(second);
    await page.goto(third);
    const { events } = eventsOf(await sdk.context.tracing.stop());
    const gotos = events.filter((event) => event.type === 'before' && event.method === 'goto').map((event) => event.callId);
    expect(gotos).toHaveLength(2);
    // The read before a goto is not waited for: it must still hold the page the goto left.
    const urlOf = (name: string) =>
      events
        .filter((event) => event.type === 'frame-snapshot' && event.snapshot.snapshotName === name && event.snapshot.isMainFrame)
        .map((event) => event.snapshot.frameUrl);
    expect(urlOf(`before@${gotos[0]}`)).toEqual([first]);
    expect(urlOf(`after@${gotos[0]}`)).toEqual([second]);
    expect(urlOf(`before@${gotos[1]}`)).toEqual([second]);
    expect(urlOf(`after@${gotos[1]}`)).toEqual([third]);
  });

  it("is on the Stagehand class's context too, and records its pages' calls", async () => {
    const context = stagehand.sdk.context;
    await context.tracing.start({ title: 'stagehand' });
    await stagehand.page.goto(stagehand.servers.a.url('leaf.html'));
    const { events } = eventsOf(await context.tracing.stop());
    expect(events[0]).toMatchObject({ type: 'context-options', title: 'stagehand' });
    expect(events.some((event) => event.type === 'before' && event.class === 'Page' && event.method === 'goto')).toBe(true);
  });
});
