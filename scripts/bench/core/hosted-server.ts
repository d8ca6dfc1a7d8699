// Tendril's hosted server (src/hosted/server) in the bench's process, for the measurements that need
// one (hosted-cache, function): on loopback, launching the bench's Chromium with its flags.
import { readServerConfig } from '../../../src/hosted/server/config.js';
import { startHostedServer, type HostedServer } from '../../../src/hosted/server/http.js';
import { Logger } from '../../../src/logger.js';
import type { BenchEnv } from './adapter.js';
import { errorText } from './measurement.js';
import type { BenchModelServer } from './model.js';
import { withTimeout } from './timed-session.js';

export async function startBenchHostedServer(
  env: BenchEnv,
  o: { readonly apiKey: string; readonly maxSessions: number },
): Promise<HostedServer> {
  const config = readServerConfig({
    PORT: '0',
    HOSTED_API_KEYS: o.apiKey,
    MAX_SESSIONS: String(o.maxSessions),
    CHROME_PATH: env.launch.executablePath,
    CHROME_ARGS: env.launch.args.join(' '),
    // The bench pages are served on loopback, which hosted sessions reach only when allowed.
    HOSTED_ALLOW_NETWORKS: '127.0.0.0/8,::1',
  });
  return startHostedServer(config, new Logger({ verbose: 0, disablePino: true }));
}

/** What a measurement started around the hosted server, for `closeHostedRun`. */
export interface HostedRun {
  /** The measurement's id, which starts its notes. */
  readonly id: string;
  readonly env: BenchEnv;
  readonly server: HostedServer | null;
  readonly model: BenchModelServer | null;
  /** `chromeNow` before the server started. */
  readonly chromeBefore: ReadonlySet<number>;
  readonly notes: string[];
}

/**
 * Closes the server (and any session left on it), then the fake model, then waits for whatever
 * Chrome either left behind (killing it after 5 s); a server that does not close cleanly and
 * Chrome that had to be killed are notes.
 */
export async function closeHostedRun(r: HostedRun): Promise<void> {
  if (r.server) {
    await withTimeout('hosted server close()', 15_000, r.server.close()).catch((err: unknown) => {
      r.notes.push(`${r.id}: the hosted server did not close cleanly: ${errorText(err)}`);
    });
  }
  await r.model?.close();
  const killed = await reapChromeSince(r.env, r.chromeBefore);
  if (killed) r.notes.push(`${r.id}: ${killed} Chrome process(es) of the hosted server outlived its close() and were killed.`);
}

/** The Chrome processes there are now: what the server starts is found against them. */
export function chromeNow(env: BenchEnv): Set<number> {
  return new Set(env.reaper.snapshot().map((p) => p.pid));
}

/** Waits for the Chrome processes started since `before` to exit, killing them after 5 s; returns how many were killed. */
export async function reapChromeSince(env: BenchEnv, before: ReadonlySet<number>): Promise<number> {
  const { survivors } = await env.reaper.settle(env.reaper.snapshot().filter((p) => !before.has(p.pid)));
  return survivors.length;
}
