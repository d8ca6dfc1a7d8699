// One cold start of a bundled function, in a Node process of its own (the bench's `function`
// measurement): import the bundle, call its handler once, and print one JSON line on stdout.
// argv: <file URL of the bundle> <GET|POST>. Plain JavaScript with no imports, so that nothing but the
// bundle itself is loaded between t0 and the answer.
const t0 = performance.now();
const [url, method = 'POST'] = process.argv.slice(2);
let result;
try {
  const handlers = await import(url);
  const imported = performance.now();
  const response = await handlers[method](new Request('http://127.0.0.1/api/run', { method }));
  const body = await response.text();
  const answered = performance.now();
  result = { importMs: imported - t0, totalMs: answered - t0, status: response.status, body };
} catch (error) {
  result = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
// Whatever the function left running (timers, sockets) is not waited for: its answer is in.
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
