// The types of pack-check.mjs, a plain ES module that `npm run pack:check` runs with no build step.
export function pack(options?: { build?: boolean }): Promise<string>;
export function checkTarball(tarball: string): Promise<string[]>;
