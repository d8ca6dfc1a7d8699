// One process of the seam comparison: the Sdk of the source tree it is given (this checkout, or
// the commit before the instrumentation seam), `extract()` and `act(observeResult)` on the act page,
// each call's wall and CPU time (this process only: the seam's cost is in Node) as a JSON line.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Given {
  readonly root: string;
  readonly url: string;
  readonly calls: number;
  readonly warmups: number;
  readonly options: Record<string, unknown>;
  readonly action: { selector: string; description: string; method: string; arguments: string[] };
}

const given = JSON.parse(process.argv[2]!) as Given;
const { Sdk } = (await import(pathToFileURL(path.join(given.root, 'src', 'index.ts')).href)) as typeof import('../../../../src/index.js');
const sdk = new Sdk(given.options as ConstructorParameters<typeof Sdk>[0]);
await sdk.init();
try {
  await sdk.context.pages()[0]!.goto(given.url, { waitUntil: 'load' });
  const timed = async (work: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await work();
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    return [ms, (used.user + used.system) / 1000] as const;
  };
  const extract = () => sdk.extract();
  const act = () => sdk.act({ ...given.action, arguments: [...given.action.arguments] });
  for (let i = 0; i < given.warmups; i++) {
    await extract();
    await act();
  }
  const out = { extract: [] as number[], extractCpu: [] as number[], act: [] as number[], actCpu: [] as number[] };
  for (let i = 0; i < given.calls; i++) {
    const [e, ec] = await timed(extract);
    const [a, ac] = await timed(act);
    out.extract.push(e);
    out.extractCpu.push(ec);
    out.act.push(a);
    out.actCpu.push(ac);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await sdk.close();
}
