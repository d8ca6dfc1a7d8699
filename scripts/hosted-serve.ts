// `npm run hosted:serve`: the hosted-browser server, configured by the environment (PORT,
// HOSTED_API_KEYS, MAX_SESSIONS, SESSION_TIMEOUT_MS, PUBLIC_URL, CHROME_PATH, CHROME_ARGS,
// HOSTED_SIGNING_SECRET). Prints its URL once it listens; SIGINT/SIGTERM end every session first.
// (`npx tendril hosted serve` will run the same with the command line.)

import { readServerConfig } from '../src/hosted/server/config.js';
import { startHostedServer } from '../src/hosted/server/http.js';
import { Logger } from '../src/logger.js';

const logger = new Logger({ verbose: 1 });
const server = await startHostedServer(readServerConfig(), logger);
console.log(server.url);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
