// `tendril relay`: lets Tendril processes and other CDP clients drive the tabs a user shares from
// the Tendril extension (see src/relay/server.ts). Prints the extension's address and the clients'
// cdpUrl, each with its own secret token; the tokens go to stdout for the user and to no log.

import { Logger } from '../logger.js';
import { startRelay } from '../relay/server.js';
import { parseFlags, parsePort } from './usage.js';

export const RELAY_USAGE = `tendril relay [--port <n>] [--host <address>]

Starts a relay between the Tendril extension in your browser and CDP clients (a Tendril Sdk with
localBrowserLaunchOptions.cdpUrl, Playwright's connectOverCDP, Puppeteer, chrome-remote-interface).
Give the extension address to the extension (its options), and the cdpUrl to the client: the client
then sees the tabs you share as its browser's pages. One client at a time.

Flags:
  --port <n>          port to listen on (default 9333; 0 for any free port)
  --host <address>    address to listen on (default 127.0.0.1). Anyone who can reach it and has
                      the cdpUrl's token can drive the shared tabs.
  --verbose           log every connection (tokens are never logged)
  --quiet             log errors only

Tokens are random for each run; set TENDRIL_RELAY_EXTENSION_TOKEN and TENDRIL_RELAY_CLIENT_TOKEN
(24+ characters of A-Z a-z 0-9 - _) to keep them across restarts.`;

export async function relayCommand(argv: string[]): Promise<number> {
  const options = {
    port: { type: 'string' },
    host: { type: 'string' },
    verbose: { type: 'boolean' },
    quiet: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values } = parseFlags(argv, options, RELAY_USAGE);
  if (values.help) {
    process.stdout.write(`${RELAY_USAGE}\n`);
    return 0;
  }
  const port = values.port === undefined ? 9333 : parsePort(values.port, RELAY_USAGE);
  const host = values.host ?? '127.0.0.1';
  const logger = new Logger({ verbose: values.verbose ? 2 : values.quiet ? 0 : 1 });
  const relay = await startRelay({
    host,
    port,
    logger,
    extensionToken: process.env.TENDRIL_RELAY_EXTENSION_TOKEN || undefined,
    clientToken: process.env.TENDRIL_RELAY_CLIENT_TOKEN || undefined,
  });
  // 0.0.0.0 and :: listen everywhere: only these stay on this machine.
  if (!/^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/.test(host)) {
    process.stderr.write(
      `tendril relay: WARNING: listening on ${host}, not loopback. Anyone who can reach this port and has the cdpUrl's ` +
        'token can drive every tab you share, with your logins. Use it only on a network you trust, or tunnel to loopback.\n',
    );
  }
  process.stdout.write(
    `tendril relay listening on port ${relay.port}\n` +
      `Extension address (give it to the Tendril extension):\n  ${relay.extensionUrl}\n` +
      `cdpUrl (give it to the client):\n  ${relay.cdpUrl}\n`,
  );
  const stop = () => void relay.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => undefined);
}
