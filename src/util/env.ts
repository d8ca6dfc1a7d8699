// The process environment, read so that code without Node (edge runtimes, browsers) does not fail:
// there `process` may be missing altogether.

type MaybeProcess = { process?: { env?: Record<string, string | undefined>; versions?: { node?: string } } };

/** An environment variable, trimmed; undefined when unset, empty, or there is no environment. */
export function envVar(name: string): string | undefined {
  return (globalThis as MaybeProcess).process?.env?.[name]?.trim() || undefined;
}

export function isNode(): boolean {
  return typeof (globalThis as MaybeProcess).process?.versions?.node === 'string';
}
