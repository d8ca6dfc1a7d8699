// `npm run pack:check`: the package as its users' tools see it. Builds, packs the tarball npm would
// publish, and runs publint and arethetypeswrong on it; fails on any problem either reports.
// `tendril` and `tendril/batch` are checked for import and require (profile node16);
// `tendril/extension` and `tendril/extension-relay` are ESM only (docs/extension.md), checked as such.
//   node scripts/pack-check.mjs [--no-build]
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

async function run(file, args) {
  const { stdout } = await promisify(execFile)(file, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * Builds (unless `build` is false) and packs; returns the tarball's path, in a new folder under the
 * OS's temp dir. The build is `npm run build`'s, except that a stale API report fails it (api:check).
 */
export async function pack({ build = true } = {}) {
  if (build) {
    // The page scripts as they are when generated already: tests running beside this one read them.
    const generated = existsSync(join(root, 'src', 'generated', 'reader.ts'));
    await run(process.execPath, ['esbuild.config.mjs', ...(generated ? ['--library'] : [])]);
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
    try {
      await run(process.execPath, ['scripts/api-report.mjs']);
    } catch (error) {
      throw new Error(`${error.stderr}`.trim() || String(error));
    }
  }
  const into = mkdtempSync(join(tmpdir(), 'tendril-pack-'));
  // Without prepack (`npm run build`), which would build again, the page scripts too, under tests that read them.
  const [{ filename }] = JSON.parse(await run('npm', ['pack', '--json', '--silent', '--ignore-scripts', '--pack-destination', into]));
  return join(into, filename);
}

/** publint's and arethetypeswrong's findings on `tarball`: an empty list when there is none. */
export async function checkTarball(tarball) {
  const problems = [];
  const tools = [
    ['publint', [bin('publint'), 'run', tarball, '--strict', '--level', 'suggestion']],
    ['attw (node16)', [bin('attw'), tarball, '--profile', 'node16', '--entrypoints', '.', './batch', '--format', 'ascii', '--no-color']],
    [
      'attw (esm-only)',
      [
        bin('attw'),
        tarball,
        '--profile',
        'esm-only',
        '--entrypoints',
        './extension',
        './extension-relay',
        '--format',
        'ascii',
        '--no-color',
      ],
    ],
  ];
  for (const [name, [file, ...args]] of tools) {
    try {
      const out = await run(file, args);
      // publint exits 0 with suggestions printed; any line past its header is a finding.
      if (name === 'publint' && !/All good!/.test(out)) problems.push(`${name}:\n${out}`);
    } catch (error) {
      problems.push(`${name}:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tarball = await pack({ build: !process.argv.includes('--no-build') });
  const problems = await checkTarball(tarball);
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log(`pack:check: publint and arethetypeswrong report no problem for ${tarball}`);
}
