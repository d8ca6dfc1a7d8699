// Stagehand 4.4.0 needs Node >= 22.18 (and a global WebSocket), so it runs here, in a child process
// started with the node 22 binary of its scratch install, and the bench (Node 20) drives it over
// stdio, one JSON object per line:
//   bench -> child  { id, op, ...args }                 a request (ops below)
//   child -> bench  { id, ok: true, result, ms }        ms: the operation's own time, taken here so
//                   { id, ok: false, error }            the pipe is not counted
//   child -> bench  { gen, request }                    its model asks (Stagehand's generate callback)
//   bench -> child  { gen, ok, reply | error }          the bench's answer
// Plain JavaScript with no imports of the project's: node 22 runs it as is.
// argv[2]: absolute path of Stagehand's ESM entry; argv[3]: of the zod it depends on.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [entry, zodEntry] = process.argv.slice(2);
const { localBrowser, Stagehand } = await import(pathToFileURL(entry).href);
const zodModule = await import(pathToFileURL(zodEntry).href);
const z = zodModule.z ?? zodModule.default;

/** Deadline of one model request answered by the bench. */
const GEN_TIMEOUT_MS = 60_000;

let browser = null;
let stagehand = null;
let page = null;
const pendingGen = new Map();
let nextGen = 1;
let modelMs = 0;

const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);

/** Stagehand's model callback: the bench answers it (from its fake model), so nothing leaves the machine. */
function generate(request) {
  const gen = nextGen++;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pendingGen.delete(gen);
      reject(new Error(`the bench did not answer model request ${gen} within ${GEN_TIMEOUT_MS} ms`));
    }, GEN_TIMEOUT_MS);
    pendingGen.set(gen, {
      settle: (msg) => {
        clearTimeout(timer);
        modelMs += performance.now() - t0;
        if (msg.ok) resolve(msg.reply);
        else reject(new Error(msg.error));
      },
    });
    send({ gen, request });
  });
}

/** A schema as the bench recorded it from its builder (adapter: `recordSchema`), rebuilt with 4.4.0's zod. */
function buildSchema(node) {
  switch (node.kind) {
    case 'object':
      return z.object(Object.fromEntries(Object.entries(node.shape).map(([k, v]) => [k, buildSchema(v)])));
    case 'string':
      return z.string();
    case 'describe':
      return buildSchema(node.inner).describe(node.description);
    case 'optional':
      return buildSchema(node.inner).optional();
    default:
      throw new Error(`unknown schema node ${JSON.stringify(node.kind)}`);
  }
}

function currentPage() {
  if (!page) throw new Error('no page: init first');
  return page;
}

const ops = {
  async init({ executablePath, args, headless, withModel }) {
    browser = await localBrowser.launch({ executablePath, args, headless });
    stagehand = await Stagehand.create({ browser, ...(withModel ? { model: { generate } } : {}) });
    [page] = await browser.context.pages();
    if (!page) throw new Error('Stagehand 4.4.0 has no page after launch');
  },
  async goto({ url, waitUntil }) {
    await currentPage().goto(url, waitUntil ? { waitUntil } : undefined);
  },
  async pageText({ timeoutMs }) {
    // Its own default gives up after 20 s; the bench's limit for a page is the one that counts.
    return (await currentPage().snapshot({ includeIframes: true, timeout: timeoutMs })).formattedTree;
  },
  async extract({ instruction, schema }) {
    modelMs = 0;
    const { data } = await stagehand.extract(instruction, buildSchema(schema));
    return { data, modelMs };
  },
  async act({ action }) {
    const { data } = await stagehand.act(action);
    return { success: data.success };
  },
  async evaluate({ expression }) {
    return currentPage().evaluate(expression);
  },
  async close() {
    const sh = stagehand;
    const b = browser;
    stagehand = null;
    browser = null;
    page = null;
    try {
      await sh?.close();
    } finally {
      await b?.close();
    }
  },
};

let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.gen !== undefined) {
    pendingGen.get(msg.gen)?.settle(msg);
    pendingGen.delete(msg.gen);
    return;
  }
  // One operation at a time, as a Stagehand client is used; model answers above are not queued.
  queue = queue.then(async () => {
    const op = ops[msg.op];
    if (!op) return send({ id: msg.id, ok: false, error: `unknown op ${msg.op}` });
    const t0 = performance.now();
    try {
      const result = await op(msg);
      send({ id: msg.id, ok: true, result: result ?? null, ms: performance.now() - t0 });
    } catch (err) {
      send({ id: msg.id, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
  });
});
// The bench went away (or closed our stdin): close the browser, then go too.
lines.on('close', () => {
  const done = () => process.exit(0);
  Promise.race([ops.close().catch(() => {}), new Promise((r) => setTimeout(r, 5_000))]).then(done, done);
});
send({ ready: true });
