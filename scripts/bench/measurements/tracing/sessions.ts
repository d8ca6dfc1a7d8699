// The two libraries as the tracing measurement drives them: the same four actions (goto, a click
// on one element found once for both, a page read, a screenshot), and tracing started and stopped
// on the same browser and context, so "on" and "off" differ only by the recorder.
import { statSync } from 'node:fs';
import { chromium, type BrowserContext, type Page as PwPage } from 'playwright-core';
import { Sdk, type Page } from '../../../../src/index.js';
import { clientOptions, type LaunchSpec } from '../../core/config.js';

export const ACTIONS = ['goto', 'click', 'read', 'screenshot'] as const;
export type ActionName = (typeof ACTIONS)[number];

export interface TraceSession {
  readonly label: string;
  /** Each action: the page loaded (`load`), the element clicked, the page's text read, a viewport screenshot. */
  run(action: ActionName, url: string, clickXPath: string): Promise<void>;
  /** An expression in the page's main frame. */
  evaluate(expression: string): Promise<unknown>;
  /** tracing.start({ screenshots: true, snapshots: true }). */
  startTracing(): Promise<void>;
  /** tracing.stop({ path }); resolves the file's size in bytes. */
  stopTracing(path: string): Promise<number>;
  close(): Promise<void>;
}

const TRACE_OPTIONS = { screenshots: true, snapshots: true } as const;

export async function tendrilSession(launch: LaunchSpec, timeoutMs: number): Promise<TraceSession> {
  const sdk = new Sdk(clientOptions(launch));
  await sdk.init();
  const page = (): Page => {
    const first = sdk.context.pages()[0];
    if (!first) throw new Error('Tendril has no page');
    return first;
  };
  return {
    label: 'Tendril',
    run: async (action, url, xpath) => {
      if (action === 'goto') await page().goto(url, { waitUntil: 'load', timeoutMs });
      else if (action === 'click') await page().locator(`xpath=${xpath}`).click();
      else if (action === 'read') {
        if (typeof (await sdk.extract()).pageText !== 'string') throw new Error('Tendril extract() gave no page text');
      } else await page().screenshot();
    },
    evaluate: (expression) => page().evaluate<unknown>(expression),
    startTracing: () => sdk.context.tracing.start(TRACE_OPTIONS),
    stopTracing: async (path) => {
      await sdk.context.tracing.stop({ path });
      return statSync(path).size;
    },
    close: () => sdk.close(),
  };
}

export async function playwrightSession(launch: LaunchSpec, timeoutMs: number): Promise<TraceSession> {
  const browser = await chromium.launch({ executablePath: launch.executablePath, args: [...launch.args], headless: true });
  let context: BrowserContext;
  let page: PwPage;
  try {
    context = await browser.newContext();
    page = await context.newPage();
  } catch (error) {
    await browser.close();
    throw error;
  }
  return {
    label: 'playwright-core',
    run: async (action, url, xpath) => {
      if (action === 'goto') await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
      else if (action === 'click') await page.locator(`xpath=${xpath}`).click({ timeout: timeoutMs });
      else if (action === 'read') {
        if (typeof (await page.evaluate(() => document.body.innerText)) !== 'string') throw new Error('no innerText');
      } else await page.screenshot({ timeout: timeoutMs });
    },
    evaluate: (expression) => page.evaluate(expression),
    startTracing: async () => {
      await context.tracing.start(TRACE_OPTIONS);
    },
    stopTracing: async (path) => {
      await context.tracing.stop({ path });
      return statSync(path).size;
    },
    close: () => browser.close(),
  };
}

/**
 * The element both libraries click on a page: the first visible button that submits no form or
 * same-document link (`#…`), else the first visible paragraph or heading, as an absolute XPath.
 * Found once per page, before anything is timed, so both click the very same element. A string, so
 * no helper a bundler adds around a function can reach the page.
 */
export const CLICK_TARGET = `(() => {
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const clickable = [...document.querySelectorAll('button, a[href^="#"]')].find(
    (el) => visible(el) && !(el instanceof HTMLButtonElement && el.form && el.type === 'submit'),
  );
  const target = clickable ?? [...document.querySelectorAll('p, h1, h2')].find(visible) ?? document.body;
  const steps = [];
  for (let el = target; el && el !== document.documentElement; el = el.parentElement) {
    const same = [...el.parentElement.children].filter((c) => c.localName === el.localName);
    steps.unshift(same.length > 1 ? el.localName + '[' + (same.indexOf(el) + 1) + ']' : el.localName);
  }
  return '/html/' + steps.join('/');
})()`;
