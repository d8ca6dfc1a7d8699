// The public API: for each package entry, one declaration file with only what that entry exports
// (dist/<entry>.d.ts and, for entries with a `require` condition, the same as dist/<entry>.d.cts),
// and a report of that surface in api/<entry>.api.md, committed, so that a change to the public API
// shows in review as a change to that file. Reads the declarations `tsc -p tsconfig.build.json`
// wrote to dist/types (stripInternal: what is marked @internal is not there).
//   node scripts/api-report.mjs            fails when a report differs from api/ (npm run api:check)
//   node scripts/api-report.mjs --update   writes api/ anew (npm run api:update)
//   node scripts/api-report.mjs --build    writes the declarations, and only warns when a report differs (npm run build)
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each entry: its declarations as tsc writes them, the rolled-up file, and whether `require` loads it. */
export const API_ENTRIES = [
  { name: 'tendril', from: 'src/index.d.ts', to: 'index', cjs: true },
  { name: 'tendril-extension', from: 'src/extension.d.ts', to: 'extension', cjs: false },
  { name: 'tendril-extension-relay', from: 'src/extensionRelay.d.ts', to: 'extension-relay', cjs: false },
  { name: 'tendril-batch', from: 'src/batch/index.d.ts', to: 'batch', cjs: true },
];

// Messages about how the code is documented (TSDoc syntax, release tags) are not what the report is for.
const quiet = { logLevel: 'none' };
const messages = {
  compilerMessageReporting: { default: { logLevel: 'error' } },
  extractorMessageReporting: {
    default: { logLevel: 'error' },
    'ae-missing-release-tag': quiet,
    'ae-undocumented': quiet,
    // A type the entry uses but does not export by name (a base class, an option's type): it is in
    // the rolled-up file and the report, only not importable by name.
    'ae-forgotten-export': quiet,
    'ae-internal-missing-underscore': quiet,
    'ae-unresolved-link': quiet,
    'ae-different-release-tags': quiet,
    'ae-incompatible-release-tags': quiet,
  },
  tsdocMessageReporting: { default: { logLevel: 'none' } },
};

export function runApiReport({ update, build = false }) {
  const types = join(root, 'dist/types');
  if (!existsSync(join(types, API_ENTRIES[0].from)))
    throw new Error('dist/types has no declarations: run `tsc -p tsconfig.build.json` first (npm run build does).');
  const changed = [];
  for (const entry of API_ENTRIES) {
    const rollup = join(root, 'dist', `${entry.to}.d.ts`);
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: join(types, entry.from),
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2022',
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              lib: ['ES2022', 'DOM', 'DOM.Iterable'],
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
            files: [join(types, entry.from)],
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: entry.name,
          reportFolder: join(root, 'api'),
          reportTempFolder: join(root, 'dist/api-temp'),
          // A class the entry exports extends one it does not (SdkCore): its members are the API too.
          includeForgottenExports: true,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: true, untrimmedFilePath: rollup },
        tsdocMetadata: { enabled: false },
        newlineKind: 'lf',
        messages,
      },
      configObjectFullPath: join(root, 'api', 'api-extractor.json'),
      packageJsonFullPath: join(root, 'package.json'),
    });
    const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
    if (result.errorCount > 0) throw new Error(`api-extractor found ${result.errorCount} error(s) in ${entry.from} (above).`);
    if (result.apiReportChanged && !update) changed.push(`api/${entry.name}.api.md`);
    // `require` resolves the entry to CJS code, whose types must be CJS declarations (.d.cts): the
    // rolled-up file imports nothing of ours, so the same text serves both.
    if (entry.cjs) copyFileSync(rollup, rollup.replace(/\.d\.ts$/, '.d.cts'));
  }
  if (changed.length && build) console.warn(`warning: the public API differs from ${changed.join(', ')}: see \`npm run api:check\`.`);
  else if (changed.length)
    throw new Error(
      `The public API changed: ${changed.join(', ')} differ from what the entries export now (the new text is in dist/api-temp/). ` +
        'If the change is meant, run `npm run api:update` and commit api/.',
    );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    runApiReport({ update: process.argv.includes('--update'), build: process.argv.includes('--build') });
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
