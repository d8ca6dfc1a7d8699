// Pages of Playwright and Puppeteer, connected to the Sdk's own (pipe-launched) browser through
// sdk.connectURL(), passed as `page` to extract() and act(). Both libraries run for real.

import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError, Sdk } from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { sdkOptions, startDebugChrome } from '../helpers.js';

let servers: FixtureServers;
let sdk: Sdk;

beforeAll(async () => {
  servers = await startFixtureServers();
  sdk = new Sdk(sdkOptions());
  await sdk.init();
});
afterAll(async () => {
  await sdk?.close();
  await servers?.close();
});

const clickTop = { selector: "xpath=//button[@id='top']", description: 'the top button', method: 'click', arguments: [] };

describe('connectURL()', () => {
  it('is a loopback WebSocket URL that refuses a connection without its token', async () => {
    const url = new URL(sdk.connectURL());
    expect(url.protocol).toBe('ws:');
    expect(url.hostname).toBe('127.0.0.1');
    const wrong = `ws://${url.host}/devtools/browser/${'0'.repeat(48)}`;
    const status = await new Promise<number>((resolve) => {
      const socket = new WebSocket(wrong);
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => resolve(101));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(401);
  });
});

describe('a Playwright page as `page`', () => {
  it('answers dialogs itself once the Tendril page has a handler that leaves them alone', async () => {
    const browser = await chromium.connectOverCDP(sdk.connectURL());
    try {
      const pwPage = await browser.contexts()[0]!.newPage();
      await pwPage.goto(servers.a.url('dialog-click.html'));
      const own = sdk.context.pages().find((page) => page.url().includes('dialog-click.html'))!;
      // Without it Tendril's default answers first: confirm() is dismissed.
      await pwPage.click('#confirm');
      expect(await pwPage.textContent('#state')).toBe('confirm said false');
      const off = own.on('dialog', () => undefined);
      pwPage.on('dialog', (dialog) => void dialog.accept());
      await pwPage.click('#confirm');
      expect(await pwPage.textContent('#state')).toBe('confirm said true');
      off();
    } finally {
      await browser.close();
    }
  });

  it('is extracted from and acted on, in the Sdk’s own browser', async () => {
    const browser = await chromium.connectOverCDP(sdk.connectURL());
    try {
      const pwPage = await browser.contexts()[0]!.newPage();
      await pwPage.goto(servers.a.url('act.html'));
      const { pageText } = await sdk.extract({ page: pwPage });
      expect(pageText).toContain('button: Top button');
      expect(pageText).toContain('button: Shadow button');
      const result = await sdk.act(clickTop, { page: pwPage });
      expect(result.success).toBe(true);
      // Read back through Playwright itself.
      expect(await pwPage.evaluate(() => document.getElementById('top-state')!.textContent)).toBe('top clicked 1');
    } finally {
      await browser.close();
    }
    // Playwright's leaving does not disturb the Sdk.
    const own = sdk.context.pages()[0]!;
    await own.goto(servers.a.url('act.html'));
    expect((await sdk.extract({ page: own })).pageText).toContain('Top button');
  });

  it('of another browser is refused with a clear error', async () => {
    const other = await startDebugChrome();
    const browser = await chromium.connectOverCDP(other.wsUrl);
    try {
      const pwPage = await browser.contexts()[0]!.newPage();
      const error = await sdk.extract({ page: pwPage }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(/not a page of this Sdk's browser.*connectOverCDP\(sdk\.connectURL\(\)\)/);
    } finally {
      await browser.close();
      await other.kill();
    }
  });
});

describe('a Puppeteer page as `page`', () => {
  it('is extracted from and acted on', async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: sdk.connectURL() });
    try {
      const ppPage = await browser.newPage();
      await ppPage.goto(servers.a.url('act.html'));
      const { pageText } = await sdk.extract({ page: ppPage, selector: '#form' });
      expect(pageText).toContain('textbox: Name');
      expect(pageText).not.toContain('Top button');
      await sdk.act(
        { selector: "xpath=//input[@id='name']", description: 'the name field', method: 'fill', arguments: ['Grace'] },
        { page: ppPage },
      );
      expect(await ppPage.evaluate(() => (document.getElementById('name') as HTMLInputElement).value)).toBe('Grace');
    } finally {
      await browser.disconnect();
    }
  });
});
