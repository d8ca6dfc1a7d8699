// The main job on an embedded default: start a local Chromium, open the bundled demo page (or the
// URL given as the first argument) and print what Tendril sees: the frame tree and each frame's
// text, shadow roots included. Usage: npm run demo [-- <url>]
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sdk, type Frame } from '../src/index.js';

const DEMO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'demo');

/** Serves the demo page on two loopback origins, so its partner iframe is cross-origin. */
async function serveDemo(): Promise<{ url: string; close: () => void }> {
  const servers: http.Server[] = [];
  const origins: string[] = [];
  for (const host of ['127.0.0.1', 'localhost']) {
    const self = origins.length;
    const server = http.createServer(async (req, res) => {
      const name = path.basename(new URL(req.url ?? '/', 'http://x').pathname) || 'index.html';
      try {
        const html = (await readFile(path.join(DEMO_DIR, name), 'utf8'))
          .replaceAll('{{SELF}}', origins[self]!)
          .replaceAll('{{OTHER}}', origins[1 - self]!);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    origins.push(`http://${host}:${(server.address() as AddressInfo).port}`);
  }
  return { url: `${origins[0]}/index.html`, close: () => servers.forEach((server) => server.close()) };
}

/** Visible text of a document, entering open shadow roots (runs in the page). */
function composedText(): string {
  const parts: string[] = [];
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.textContent?.trim();
      if (text) parts.push(text);
      return;
    }
    if (node instanceof HTMLScriptElement || node instanceof HTMLStyleElement) return;
    if (node instanceof Element && node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.childNodes) walk(child);
  };
  walk(document.body);
  return parts.join(' | ');
}

async function main(): Promise<void> {
  const demo = process.argv[2] ? undefined : await serveDemo();
  const url = process.argv[2] ?? demo!.url;
  const sdk = new Sdk({ verbose: 0, localBrowserLaunchOptions: { args: ['--site-per-process'] } });
  try {
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(url);
    console.log(`# ${await page.title()}  (${page.url()})\n`);
    const print = async (frame: Frame, depth: number) => {
      const kind = frame.parentFrame() ? (frame.isOutOfProcess() ? 'out-of-process iframe' : 'iframe') : 'page';
      console.log(`${'  '.repeat(depth)}[${kind}] ${frame.url()}`);
      console.log(`${'  '.repeat(depth + 1)}${await frame.evaluate(composedText)}`);
      for (const child of frame.childFrames()) await print(child, depth + 1);
    };
    await print(page.mainFrame(), 0);
    if (demo) {
      // Closed shadow roots are invisible to page script; the selector engine reaches them.
      console.log(`\n[closed shadow root] ${await page.locator('//div[@id="reviews"]//blockquote').textContent()}`);
    }
  } finally {
    await sdk.close();
    demo?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});
