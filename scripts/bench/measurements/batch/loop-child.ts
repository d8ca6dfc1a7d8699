// One of the batch measurement's loops (runners.ts: the Sdk loop, the playwright-core loop) in a
// process of its own, so that its Node's CPU is counted apart from the bench's page server's.
// Argument: JSON { kind, launch, urls, concurrency }. Prints its RunResult as one JSON line.
import { playwrightLoop, sdkLoop, type Browsers } from './runners.js';

const given = JSON.parse(process.argv[2]!) as { kind: 'sdk' | 'playwright'; launch: Browsers; urls: string[]; concurrency: number };
const run = given.kind === 'sdk' ? sdkLoop : playwrightLoop;
process.stdout.write(`${JSON.stringify(await run(given.launch, given.urls, given.concurrency))}\n`);
process.exit(0);
