// `npm run hosted:load`: many clients at once against one hosted server (`tendril hosted serve`, a
// child process) on loopback. Each client creates a session (env "HOSTED"), loads a page of a
// loopback site and reads it; all hold their sessions until every client is through, so the
// sessions run side by side. Prints what each client got (a working session, a busy answer, a
// timeout, another error), init() and goto() times, and what the sessions' Chromium took (memory as
// PSS, CPU time). Bounded: the clients, one deadline for the whole run, loopback only.
//
//   npm run hosted:load -- --clients 50 --max-sessions 50 [--max-starting 2] [--start-queue N] [--start-wait-ms N] [--client-wait-ms 30000] [--json]

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { findChrome } from '../src/browser/findChrome.js';
import { HostedServiceError, Sdk, TimeoutError } from '../src/index.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '50' },
    'max-sessions': { type: 'string', default: '50' },
    'max-starting': { type: 'string' },
    'start-queue': { type: 'string' },
    'start-wait-ms': { type: 'string' },
    'deadline-s': { type: 'string', default: '300' },
    /** How long each client waits for a session (localBrowserLaunchOptions.connectTimeoutMs). */
    'client-wait-ms': { type: 'string', default: '30000' },
    json: { type: 'boolean', default: false },
  },
});
const CLIENTS = Math.min(200, Number(values.clients));
const KEY = 'load-key';

type Outcome = { kind: 'ok' | 'busy' | 'timeout' | 'error'; detail?: string; initMs?: number; gotoMs?: number };

function classify(error: unknown): Outcome {
  const name = (error as Error)?.name ?? 'Error';
  const detail = `${name}: ${(error as Error)?.message ?? String(error)}`.slice(0, 300);
  if (error instanceof HostedServiceError && (error.status === 429 || error.status === 503)) return { kind: 'busy', detail };
  if (error instanceof TimeoutError || name === 'BrowserConnectError' || /timed? ?out|aborted due to timeout/i.test(detail))
    return { kind: 'timeout', detail };
  return { kind: 'error', detail };
}

/** The processes below `root`, from /proc. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) if (ppid === pid) found.push(child), walk(child);
  };
  walk(root);
  return found;
}

/** Summed PSS (kB) and CPU time (s, user + system) of the processes. */
function usage(pids: number[]): { pssKb: number; cpuS: number; chrome: number } {
  let pssKb = 0;
  let ticks = 0;
  let chrome = 0;
  for (const pid of pids) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (!/chrom/i.test(comm)) continue;
      chrome++;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone meanwhile.
    }
  }
  return { pssKb, cpuS: ticks / 100, chrome };
}

const percentile = (list: number[], p: number) => {
  if (!list.length) return NaN;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main(): Promise<void> {
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>load</title><h1>Hello</h1>${'<p>Some text to read. </p>'.repeat(50)}`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOSTED_API_KEYS: KEY,
    PORT: '0',
    MAX_SESSIONS: String(values['max-sessions']),
    CHROME_PATH: process.env.CHROME_PATH ?? findChrome(),
    CHROME_ARGS: '--disable-gpu',
    HOSTED_ALLOW_NETWORKS: '127.0.0.0/8',
  };
  if (values['max-starting']) env.HOSTED_MAX_STARTING = values['max-starting'];
  if (values['start-queue']) env.HOSTED_START_QUEUE = values['start-queue'];
  if (values['start-wait-ms']) env.HOSTED_START_WAIT_MS = values['start-wait-ms'];
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'hosted', 'serve', '--quiet'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const deadline = setTimeout(() => {
    process.stderr.write(`The run passed its deadline of ${values['deadline-s']} s; stopping.\n`);
    server.kill('SIGKILL');
    process.exit(3);
  }, Number(values['deadline-s']) * 1000);
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    server.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(text);
      if (found) resolve(found[1]!);
    });
    server.once('exit', (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
  const serverPid = server.pid!;

  let peak = { pssKb: 0, cpuS: 0, chrome: 0, sessions: 0 };
  let peakPids: number[] = [];
  let arrived = 0;
  let releaseAll!: () => void;
  const allThrough = new Promise<void>((resolve) => (releaseAll = resolve));
  /** The last client through measures, while every session still runs. */
  const through = async () => {
    if (++arrived < CLIENTS) return;
    peakPids = descendants(serverPid);
    const health = (await (await fetch(`${url}/healthz`)).json()) as { sessions: number };
    peak = { ...usage(peakPids), sessions: health.sessions };
    releaseAll();
  };

  const started = Date.now();
  const outcomes = await Promise.all(
    Array.from({ length: CLIENTS }, async (): Promise<Outcome> => {
      const sdk = new Sdk({
        env: 'HOSTED',
        apiKey: KEY,
        projectId: 'load',
        hostedApiUrl: url,
        verbose: 0,
        disablePino: true,
        localBrowserLaunchOptions: { connectTimeoutMs: Number(values['client-wait-ms']) },
      });
      const t0 = Date.now();
      let outcome: Outcome;
      try {
        await sdk.init();
        const initMs = Date.now() - t0;
        const t1 = Date.now();
        try {
          const page = sdk.context.pages()[0]!;
          await page.goto(siteUrl, { timeoutMs: 60_000 });
          const title = await page.title();
          outcome =
            title === 'load' ? { kind: 'ok', initMs, gotoMs: Date.now() - t1 } : { kind: 'error', detail: `title ${title}`, initMs };
        } catch (error) {
          outcome = { ...classify(error), initMs };
        }
      } catch (error) {
        outcome = classify(error);
      }
      // Every session stays until all clients are through, so they run side by side.
      await through();
      await allThrough;
      await sdk.close().catch(() => undefined);
      return outcome;
    }),
  );
  const wallMs = Date.now() - started;
  const health = (await (await fetch(`${url}/healthz`)).json()) as { sessions: number };
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  clearTimeout(deadline);
  site.close();
  // What the server started and did not end (orphans leave its tree, so the pids seen at the peak).
  const leftChrome = usage(peakPids).chrome;

  const count = (kind: Outcome['kind']) => outcomes.filter((o) => o.kind === kind).length;
  const inits = outcomes.filter((o) => o.initMs !== undefined).map((o) => o.initMs!);
  const gotos = outcomes.filter((o) => o.gotoMs !== undefined).map((o) => o.gotoMs!);
  const summary = {
    clients: CLIENTS,
    maxSessions: Number(values['max-sessions']),
    ok: count('ok'),
    busy: count('busy'),
    timeout: count('timeout'),
    error: count('error'),
    initMs: { p50: percentile(inits, 50), p90: percentile(inits, 90), max: percentile(inits, 100) },
    gotoMs: { p50: percentile(gotos, 50), p90: percentile(gotos, 90), max: percentile(gotos, 100) },
    wallMs,
    atPeak: {
      sessions: peak.sessions,
      chromeProcesses: peak.chrome,
      pssMb: Math.round(peak.pssKb / 1024),
      pssMbPerSession: peak.sessions ? Math.round(peak.pssKb / 1024 / peak.sessions) : NaN,
      chromeCpuS: peak.cpuS,
      chromeCpuSPerSession: peak.sessions ? Number((peak.cpuS / peak.sessions).toFixed(2)) : NaN,
    },
    sessionsLeft: health.sessions,
    chromeLeftAfterStop: leftChrome,
    // A few of each kind, the worst first.
    failures: (['timeout', 'error', 'busy'] as const).flatMap((kind) =>
      [
        ...new Set(
          outcomes.filter((o) => o.kind === kind).map((o) => `${kind}${o.initMs === undefined ? ' (init)' : ' (goto)'}: ${o.detail}`),
        ),
      ].slice(0, 3),
    ),
  };
  process.stdout.write(values.json ? `${JSON.stringify(summary)}\n` : `${JSON.stringify(summary, null, 2)}\n`);
  process.exit(summary.timeout || summary.error || summary.sessionsLeft || leftChrome ? 1 : 0);
}

void main();
