// Downloads on a Chrome that several DevTools clients share. Chrome keeps one download setting per
// browser context, which the last client to set it wins, and which goes back to the browser's own
// choice (the user's Downloads) when a client that set it disconnects. The debug Chrome runs with
// HOME set to a folder of the test's, so "the user's Downloads" is one the test can look into.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sdk, type Download, type Page } from '../../src/index.js';
import { withDeadline } from '../../src/util/time.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { startDebugChrome, type DebugChrome } from '../helpers.js';

let servers: FixtureServers;
let chrome: DebugChrome;
let home: string;
const folders: string[] = [];

beforeAll(async () => {
  home = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-home-'));
  [servers, chrome] = await Promise.all([
    startFixtureServers(),
    startDebugChrome({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }),
  ]);
});
afterAll(async () => {
  await chrome?.kill();
  await servers?.close();
  for (const folder of [home, ...folders]) if (folder) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const made = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-downloads-'));
  folders.push(made);
  return made;
}

const attached = (downloadsPath: string) =>
  new Sdk({ verbose: 0, disablePino: true, downloadsPath, localBrowserLaunchOptions: { cdpUrl: chrome.wsUrl } });

const linkTo = (name: string) => servers.a.url(`/download-link.html?name=${name}`);

function nextDownload(page: Page): Promise<Download> {
  return withDeadline(new Promise<Download>((resolve) => page.once('download', resolve)), 10_000, 'Waiting for a download');
}

/**
 * Whether the browser ever saved anything by its own choice: in the fake home's Downloads, which
 * Chrome makes on its first download there (a file moved out later leaves the folder behind).
 */
const userDownloadsMade = () => existsSync(path.join(home, 'Downloads'));

/** The same tab as another Sdk sees it (once that Sdk has attached to it). */
async function sameTab(sdk: Sdk, page: Page): Promise<Page> {
  const found = await sdk.context.pageOfTarget(page.targetId(), 5000);
  if (!found) throw new Error(`the other Sdk has no page for tab ${page.targetId()}`);
  return found;
}

describe('two Sdks attached to one Chrome', () => {
  it('each keeps the downloads of its own tabs in its own folder, also after the other has left', async () => {
    const [folderA, folderB, elsewhere] = [folder(), folder(), folder()];
    const a = attached(folderA);
    const b = attached(folderB);
    await a.init();
    // B sets its folder last: on its own, Chrome would now save A's downloads in B's folder too.
    await b.init();
    try {
      const pa = await a.context.newPage();
      const pb = await b.context.newPage();
      await Promise.all([pa.goto(linkTo('from-a.csv')), pb.goto(linkTo('from-b.csv'))]);

      const [fromA, fromAasBSeesIt] = [nextDownload(pa), nextDownload(await sameTab(b, pa))];
      await a.act({ selector: 'css=#file', method: 'click' }, { page: pa, timeout: 5000 });
      const savedA = await (await fromA).path();
      expect((await fromA).page()).toBe(pa);
      expect(savedA).toBe(path.join(folderA, 'from-a.csv'));
      expect(readFileSync(savedA, 'utf8')).toBe('contents of from-a.csv');
      // B reports the download of a tab it shares, where it is, and leaves it there.
      expect(await (await fromAasBSeesIt).path()).toBe(savedA);

      const [fromB, fromBasASeesIt] = [nextDownload(pb), nextDownload(await sameTab(a, pb))];
      await b.act({ selector: 'css=#file', method: 'click' }, { page: pb, timeout: 5000 });
      const savedB = await (await fromB).path();
      expect((await fromB).page()).toBe(pb);
      expect(savedB).toBe(path.join(folderB, 'from-b.csv'));
      expect(await (await fromBasASeesIt).path()).toBe(savedB);
      expect(readdirSync(folderA)).toEqual(['from-a.csv']);
      expect(readdirSync(folderB)).toEqual(['from-b.csv']);

      // B's disconnect puts the browser's own choice back, without a word to A.
      await b.close();
      await pa.goto(linkTo('after-b.csv'));
      const afterB = nextDownload(pa);
      await a.act({ selector: 'css=#file', method: 'click' }, { page: pa, timeout: 5000 });
      expect(await (await afterB).path()).toBe(path.join(folderA, 'after-b.csv'));
      expect(userDownloadsMade()).toBe(false);

      // A download A did not start (another client clicks the link), while that client has set a
      // folder of its own: Chrome saves it there, and A moves it into its folder.
      const other = await CDP({ port: chrome.port, target: pa.targetId() });
      try {
        await pa.goto(linkTo('by-another-client.csv'));
        await other.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: elsewhere });
        const byOther = nextDownload(pa);
        await other.send('Runtime.evaluate', { expression: "document.querySelector('#file').click()", userGesture: true });
        expect(await (await byOther).path()).toBe(path.join(folderA, 'by-another-client.csv'));
        expect(readFileSync(path.join(folderA, 'by-another-client.csv'), 'utf8')).toBe('contents of by-another-client.csv');
        expect(readdirSync(elsewhere)).toEqual([]);
      } finally {
        await other.close();
      }
      expect(readdirSync(folderA).sort()).toEqual(['after-b.csv', 'by-another-client.csv', 'from-a.csv']);
      expect(userDownloadsMade()).toBe(false);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('(the check above means something) with no client holding a folder, this Chrome saves in the fake home', async () => {
    const client = await CDP({ target: chrome.wsUrl });
    try {
      await client.send('Browser.setDownloadBehavior', { behavior: 'default', eventsEnabled: true });
      const { targetId } = await client.send('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true });
      const saved = new Promise<string | undefined>((resolve) =>
        client.on(
          'Browser.downloadProgress',
          (event: { state: string; filePath?: string }) => event.state === 'completed' && resolve(event.filePath),
        ),
      );
      // Navigating to a file served as an attachment downloads it.
      await client.send('Page.navigate', { url: servers.a.url('/download/by-default.csv') }, sessionId);
      expect(await withDeadline(saved, 10_000, 'Waiting for the default download')).toBe(path.join(home, 'Downloads', 'by-default.csv'));
      expect(readdirSync(path.join(home, 'Downloads'))).toEqual(['by-default.csv']);
    } finally {
      await client.close();
    }
  });
});
