// `tendril hosted serve`: the self-hostable hosted-browser server. Configured by the environment;
// each flag mirrors a variable and wins over it.

import { readServerConfig } from '../hosted/server/config.js';
import { closeOnSignals, startHostedServer } from '../hosted/server/http.js';
import { Logger } from '../logger.js';
import { parseFlags, UsageError } from './usage.js';

/** Flag → the environment variable it mirrors. */
const FLAGS = {
  port: 'PORT',
  host: 'HOST',
  'api-keys': 'HOSTED_API_KEYS',
  'max-sessions': 'MAX_SESSIONS',
  'session-timeout-ms': 'SESSION_TIMEOUT_MS',
  'public-url': 'PUBLIC_URL',
  'redis-url': 'REDIS_URL',
  'redis-cluster-nodes': 'REDIS_CLUSTER_NODES',
  'redis-sentinels': 'REDIS_SENTINELS',
  'redis-sentinel-name': 'REDIS_SENTINEL_NAME',
  'redis-username': 'REDIS_USERNAME',
  'redis-tls': 'REDIS_TLS',
  'redis-db': 'REDIS_DB',
  'chrome-path': 'CHROME_PATH',
  'chrome-args': 'CHROME_ARGS',
  'block-list-file': 'BLOCK_LIST_FILE',
  'allow-networks': 'HOSTED_ALLOW_NETWORKS',
  'dns-servers': 'HOSTED_DNS_SERVERS',
  'max-download-bytes': 'HOSTED_MAX_DOWNLOAD_BYTES',
  'internal-url': 'HOSTED_INTERNAL_URL',
  'idle-timeout-ms': 'HOSTED_IDLE_TIMEOUT_MS',
  'connect-timeout-ms': 'HOSTED_CONNECT_TIMEOUT_MS',
  'response-timeout-ms': 'HOSTED_RESPONSE_TIMEOUT_MS',
  'max-starting': 'HOSTED_MAX_STARTING',
  'start-queue': 'HOSTED_START_QUEUE',
  'start-wait-ms': 'HOSTED_START_WAIT_MS',
} as const;

export const HOSTED_USAGE = `tendril hosted serve [flags]

Runs the hosted-browser server: sessions on local Chromium, their CDP endpoints, and server-side
extract/act/observe with a result cache. Prints the URL it listens on once ready; SIGTERM or SIGINT
ends every session and closes the browsers before it exits.

Flags (each mirrors an environment variable, and wins over it):
${Object.entries(FLAGS)
  .map(([flag, name]) => `  --${flag.padEnd(20)} ${name}`)
  .join('\n')}
  --verbose               log every request and protocol message (level 2)
  --quiet                 log errors only

Required: HOSTED_API_KEYS (the comma-separated keys the server accepts).
Sessions reach the public internet only: open loopback or private ranges with HOSTED_ALLOW_NETWORKS.
Run it as an unprivileged user: as root, Chromium must run without its sandbox (--no-sandbox is added).`;

export async function hostedCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(`${HOSTED_USAGE}\n`);
    return 0;
  }
  if (sub !== 'serve')
    throw new UsageError(sub ? `Unknown command "hosted ${sub}".` : 'Say what to do: tendril hosted serve.', HOSTED_USAGE);
  const options = {
    ...Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }])),
    verbose: { type: 'boolean' as const },
    quiet: { type: 'boolean' as const },
    help: { type: 'boolean' as const, short: 'h' },
  };
  const values: Record<string, string | boolean | undefined> = parseFlags(rest, options, HOSTED_USAGE).values;
  if (values.help) {
    process.stdout.write(`${HOSTED_USAGE}\n`);
    return 0;
  }
  const env: Record<string, string | undefined> = { ...process.env };
  for (const [flag, name] of Object.entries(FLAGS)) {
    const value = values[flag];
    if (typeof value === 'string') env[name] = value;
  }
  const config = readServerConfig(env);
  const logger = new Logger({ verbose: values.verbose ? 2 : values.quiet ? 0 : 1 });
  const server = await startHostedServer(config, logger);
  closeOnSignals(server, logger);
  process.stdout.write(`tendril hosted server listening on ${server.url}\n`);
  // The process lives on in the server's sockets; closeOnSignals decides when it ends.
  return new Promise<number>(() => undefined);
}
