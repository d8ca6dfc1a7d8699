// The main job on an embedded default: start a local Chromium, open the bundled demo page (or the
// URL given as the first argument) and print what Tendril reads there with extract(): the page text
// across its iframes and shadow roots. Usage: npm run demo [-- <url>]
// With TENDRIL_MODEL set ("openai/gpt-4.1-mini", key from the provider's variable; TENDRIL_MODEL_BASE_URL
// for another endpoint) it also asks that model for the products, typed by a zod schema.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Sdk } from '../src/index.js';

const DEMO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'demo');

/** Serves the demo page on two loopback origins, so its partner iframe is cross-origin. */
export async function serveDemo(): Promise<{ url: string; close: () => void }> {
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

async function main(): Promise<void> {
  const demo = process.argv[2] ? undefined : await serveDemo();
  const url = process.argv[2] ?? demo!.url;
  const sdk = new Sdk({ verbose: 0, localBrowserLaunchOptions: { args: ['--site-per-process'] } });
  try {
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(url);
    const frames = page.frames();
    const oopifs = frames.filter((frame) => frame.isOutOfProcess()).length;
    console.log(`# ${page.url()}: ${frames.length} frames, ${oopifs} of them out of process\n`);
    const started = performance.now();
    const { pageText } = await sdk.extract();
    console.log(pageText);
    console.log(`\n(${pageText.length} bytes in ${Math.round(performance.now() - started)} ms)`);
    if (demo) {
      // The reviews live in a closed shadow root: a selector scopes the text to them.
      const { pageText: reviews } = await sdk.extract({ selector: '#reviews' });
      console.log(`\n# extract({ selector: '#reviews' })\n${reviews}`);
    }
    const modelName = process.env.TENDRIL_MODEL;
    if (modelName) {
      const products = await sdk.extract(
        'Every product on the page, with its price and its link',
        z.array(z.object({ name: z.string(), price: z.string().optional(), url: z.string().url().optional() })),
        { model: { modelName, baseURL: process.env.TENDRIL_MODEL_BASE_URL || undefined } },
      );
      console.log(`\n# extract(instruction, schema) with ${modelName}\n${JSON.stringify(products, null, 2)}`);
      console.log(JSON.stringify(sdk.metrics.total));
    }
  } finally {
    await sdk.close();
    demo?.close();
  }
}

// Only when run as a script: the bench imports serveDemo from here.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
    process.exitCode = 1;
  });
}
