// Stagehand 3's page.listWebMCPTools() and page.invokeWebMCPTool(), methods of a Stagehand's pages
// (src/stagehand/webmcp.ts), on sh3-webmcp.html: tools registered with document.modelContext by the
// top document, a same-origin iframe and two out-of-process ones (allowed the "tools" feature).
// Chrome 156's WebMCP domain reports the tools of each process's local root frame: those of the
// same-origin iframe are not among them (the page's own getTools() shows them with the top's).

import { beforeAll, describe, expect, it } from 'vitest';
import { chromeArgs } from '../../src/browser/launch.js';
import { InvalidOptionError, PageClosedError, Stagehand, StagehandInvalidArgumentError, TimeoutError } from '../../src/index.js';
import { toSdkOptions } from '../../src/stagehand/options.js';
import { startDebugChrome, TEST_ARGS, useBrowser } from '../helpers.js';

// A Stagehand's launch adds the WebMCP switch; the caller's own names features too: Chrome reads
// only the last --enable-features, so the launcher must merge them for the pages to keep
// document.modelContext.
const fixture = useBrowser(
  { localBrowserLaunchOptions: { args: [...TEST_ARGS, '--enable-features=TendrilNoSuchFeature'] } },
  { stagehand: true },
);
const frameOf = (query: string) => fixture.page.frames().find((each) => each.url().includes(query))!;

describe('WebMCP tools', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/sh3-webmcp.html'));
  });

  it("lists the tools of every frame, each with its frame's id, without Chrome's debugging fields", async () => {
    const tools = await fixture.page.listWebMCPTools({ timeoutMs: 5000 });
    const main = fixture.page.mainFrameId();
    const oop = frameOf('in=oop').id;
    const oop2 = frameOf('in=oop2').id;
    expect(frameOf('in=oop').isOutOfProcess()).toBe(true);
    expect(tools.map((tool) => [tool.name, tool.frameId])).toEqual([
      ['calculateSum', main],
      ['failWithMessage', main],
      ['waitForRelease', main],
      ['only-oop', oop],
      ['whereAmI', oop],
      ['only-oop2', oop2],
      ['whereAmI', oop2],
    ]);
    expect(tools[0]).toEqual({
      name: 'calculateSum',
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      // Chrome's names for the page's hints (readOnlyHint).
      annotations: expect.objectContaining({ readOnly: true }),
      frameId: main,
    });
    expect(Object.keys(tools[1]!)).toEqual(['name', 'description', 'frameId']);
  });

  it('invokes a tool and resolves with its output, after the page ran it', async () => {
    const tools = await fixture.page.listWebMCPTools();
    const sum = tools.find((tool) => tool.name === 'calculateSum')!;
    const invocation = await fixture.page.invokeWebMCPTool('calculateSum', { a: 19, b: 23 }, { frameId: sum.frameId, timeoutMs: 5000 });
    expect(invocation).toMatchObject({ toolName: 'calculateSum', frameId: sum.frameId });
    expect(await invocation.result).toEqual({
      invocationId: invocation.invocationId,
      status: 'Completed',
      output: { a: 19, b: 23, sum: 42 },
    });
    expect(await fixture.page.locator('#last-tool').textContent()).toBe('calculateSum');
    expect(await fixture.page.locator('#invocation-count').textContent()).toBe('1');
  });

  it('finds the frame of a tool by its name, an out-of-process one too', async () => {
    const invocation = await fixture.page.invokeWebMCPTool('only-oop', { x: 1 });
    expect(invocation.frameId).toBe(frameOf('in=oop').id);
    expect((await invocation.result).output).toEqual({ where: 'oop', input: { x: 1 } });
    const second = await fixture.page.invokeWebMCPTool('whereAmI', {}, { frameId: frameOf('in=oop2').id });
    expect((await second.result).output).toEqual({ where: 'oop2' });
  });

  it("reports a tool's failure in the result, as Chrome does", async () => {
    const invocation = await fixture.page.invokeWebMCPTool('failWithMessage', { message: 'no luck today' });
    const result = await invocation.result;
    expect(result.status).toBe('Error');
    expect(JSON.stringify(result)).toContain('no luck today');
  });

  it('cancels an invocation, and gives up on one that does not answer in time', async () => {
    const waiting = await fixture.page.invokeWebMCPTool('waitForRelease', {});
    await waiting.cancel();
    expect((await waiting.result).status).toBe('Canceled');
    const slow = await fixture.page.invokeWebMCPTool('waitForRelease', {}, { timeoutMs: 200 });
    const error = await slow.result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain('"waitForRelease" did not answer within 200 ms');
    await slow.cancel();
    // Still usable.
    expect((await (await fixture.page.invokeWebMCPTool('calculateSum', { a: 1, b: 2 })).result).output).toEqual({ a: 1, b: 2, sum: 3 });
  });

  it('refuses unknown tools, ambiguous names, unknown frames and bad arguments with typed errors', async () => {
    const refused = async (call: () => Promise<unknown>, message: RegExp) => {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(error).toBeInstanceOf(StagehandInvalidArgumentError);
      expect((error as Error).message).toMatch(message);
    };
    await refused(() => fixture.page.invokeWebMCPTool('noSuchTool', {}), /no WebMCP tool named "noSuchTool"/);
    await refused(
      () => fixture.page.invokeWebMCPTool('noSuchTool', {}, { frameId: fixture.page.mainFrameId() }),
      /no WebMCP tool named "noSuchTool"/,
    );
    await refused(() => fixture.page.invokeWebMCPTool('whereAmI', {}), /2 frames registered a tool named "whereAmI"; pass options.frameId/);
    await refused(
      () => fixture.page.invokeWebMCPTool('calculateSum', {}, { frameId: 'NO-SUCH-FRAME' }),
      /no frame with id "NO-SUCH-FRAME"/,
    );
    await refused(() => fixture.page.invokeWebMCPTool('calculateSum', [1, 2] as unknown as Record<string, unknown>), /input is an object/);
    await refused(() => fixture.page.invokeWebMCPTool('', {}), /tool's name/);
    await refused(() => fixture.page.listWebMCPTools({ timeoutMs: -5 }), /timeoutMs/);
  });

  it('rejects the result of an invocation whose page closes first', async () => {
    const page = await fixture.sdk.context.newPage();
    await page.goto(fixture.servers.a.url('/sh3-webmcp.html'));
    const waiting = await page.invokeWebMCPTool('waitForRelease', {});
    await page.close();
    const error = await waiting.result.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PageClosedError);
    await expect(page.listWebMCPTools()).rejects.toThrow(PageClosedError);
  });

  it('lists nothing on a page that registers no tools', async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    expect(await fixture.page.listWebMCPTools()).toEqual([]);
  });
});

describe('the launcher and WebMCP', () => {
  it("is Stagehand's: a Stagehand's launch turns the WebMCP feature on, merged with the caller's own --enable-features; a plain Sdk's does not", () => {
    expect(chromeArgs({}, '/tmp/profile').some((arg) => arg.includes('WebMCP'))).toBe(false);
    const launch = toSdkOptions({ env: 'LOCAL', localBrowserLaunchOptions: { args: ['--enable-features=Foo,WebMCPTesting'] } })
      .localBrowserLaunchOptions!;
    const merged = chromeArgs(launch, '/tmp/profile').filter((arg) => arg.startsWith('--enable-features='));
    expect(merged).toEqual(['--enable-features=WebMCPTesting,DevToolsWebMCPSupport,Foo']);
    expect(
      toSdkOptions({ env: 'LOCAL', localBrowserLaunchOptions: { cdpUrl: 'ws://127.0.0.1:9/x' } }).localBrowserLaunchOptions!.args,
    ).toBeUndefined();
  });

  it('without the feature, pages have no document.modelContext and list no tools', async () => {
    // A browser started without it, which a Stagehand attaches to (its own launch would turn it on).
    const chrome = await startDebugChrome();
    const stagehand = new Stagehand({ verbose: 0, disablePino: true, localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } });
    try {
      await stagehand.init();
      const page = stagehand.context.pages()[0]!;
      await page.goto(fixture.servers.a.url('/frames.html'));
      expect(await page.evaluate(() => typeof (document as unknown as { modelContext?: unknown }).modelContext)).toBe('undefined');
      expect(await page.listWebMCPTools()).toEqual([]);
    } finally {
      await stagehand.close();
      await chrome.kill();
    }
  });
});
