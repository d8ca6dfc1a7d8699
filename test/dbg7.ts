import { readServerConfig } from '../src/hosted/server/config.js';
import { startHostedServer } from '../src/hosted/server/http.js';
import { Sdk } from '../src/index.js';
import { Logger } from '../src/logger.js';
import { startFixtureServers } from './fixtures/server.js';
import { CHROME, TEST_ARGS } from './helpers.js';
import { startFakeModel } from './support/fake-model.js';
const KEY = 'k-123456789';
const server = await startHostedServer(readServerConfig({ PORT: '0', HOSTED_API_KEYS: KEY, MAX_SESSIONS: '2', CHROME_PATH: CHROME, CHROME_ARGS: TEST_ARGS.join(' ') }), new Logger({ verbose: 0, disablePino: true }));
const fixtures = await startFixtureServers();
const fake = await startFakeModel();
const texts = new Set<string>();
fake.script((request) => { if (!texts.has(request.user)) { texts.add(request.user); console.log('=== variant', texts.size); console.log(request.user); } return { json: { extraction: 'x' } }; });
for (let i = 0; i < 8; i++) {
  const sdk = new Sdk({ env: 'HOSTED', apiKey: KEY, projectId: 'p', hostedApiUrl: server.url, verbose: 0, disablePino: true, serverCache: false, model: { modelName: 'openai/gpt-4.1-mini', apiKey: 'sk-x', baseURL: fake.url } });
  await sdk.init();
  const page = sdk.context.pages()[0]!;
  await page.goto(fixtures.a.url('/extract-shop.html'));
  try { await sdk.extract('what products?'); } catch (e) { console.log((e as Error).message); }
  await sdk.close();
}
console.log('variants', texts.size);
await server.close(); await fixtures.close(); await fake.close();
