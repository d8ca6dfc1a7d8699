// The three MCP servers of the mcp measurement, and how each is installed and started: Tendril from
// this checkout, Playwright MCP and chrome-devtools-mcp from the npm registry into scratch folders
// under .bench/ (never dependencies of the project). All three get this machine's Chromium,
// headless, with a throwaway profile and the same extra switches, and speak stdio to the bench.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { REPO_ROOT, SCRATCH_ROOT, type LaunchSpec } from '../../core/config.js';
import { ensureScratch, installedVersion, packageJson } from '../../core/scratch.js';

export const PLAYWRIGHT_MCP_VERSION = '0.0.83';
export const DEVTOOLS_MCP_VERSION = '1.11.0';

export type ServerId = 'tendril' | 'playwright' | 'devtools';

export interface McpServerSpec {
  readonly id: ServerId;
  /** As the tables show it. */
  readonly label: string;
  /** Installs the package into its scratch folder unless that is done (Tendril: nothing to do). */
  prepare(log: (line: string) => void): void;
  /** The command line, over stdio, that launches `launch` headless with `args` added. */
  params(launch: LaunchSpec, args: readonly string[]): StdioServerParameters;
}

/** Nothing a scratch install runs may fetch a browser build: every server uses the bench's Chromium. */
const NO_BROWSER_DOWNLOADS = { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', PUPPETEER_SKIP_DOWNLOAD: '1', PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1' };

/** A peer installed from the registry into its own folder under .bench/. */
function scratchPeer(pkg: string, version: string, dir: string, log: (line: string) => void): void {
  ensureScratch(
    {
      dir,
      name: `tendril-bench-${path.basename(dir)}`,
      specs: [`${pkg}@${version}`],
      env: { ...process.env, ...NO_BROWSER_DOWNLOADS },
      problem: () =>
        installedVersion(pkg, dir) === version ? null : `npm install finished but ${pkg}@${version} is not resolvable from ${dir}`,
    },
    log,
  );
}

/** Where a peer's package lives once installed (the folder of its package.json). */
function packageDir(pkg: string, scratch: string): string {
  const file = packageJson(pkg, scratch);
  if (!file) throw new Error(`${pkg} is not installed in ${scratch}`);
  return path.dirname(file);
}

/** A folder of its own to run in: Playwright MCP writes its snapshots and logs under the working directory. */
function workDir(scratch: string): string {
  const dir = path.join(scratch, 'work');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * CHROME_ARGS as `tendril mcp` splits it: one switch per word, a switch with spaces in quotes (the
 * bench's switches hold no quotes of their own).
 */
const quoteArgs = (args: readonly string[]): string => args.map((arg) => (/\s/.test(arg) ? `"${arg}"` : arg)).join(' ');

export const TENDRIL: McpServerSpec = {
  id: 'tendril',
  label: 'Tendril',
  prepare: () => undefined,
  // From source, as the tests start it; it launches headless unless told otherwise, with a
  // profile of its own that it removes on close.
  params: (launch, args) => ({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
    cwd: REPO_ROOT,
    env: { CHROME_PATH: launch.executablePath, CHROME_ARGS: quoteArgs(args) },
    stderr: 'pipe',
  }),
};

const PLAYWRIGHT_PKG = '@playwright/mcp';
const PLAYWRIGHT_SCRATCH = path.join(SCRATCH_ROOT, `playwright-mcp-${PLAYWRIGHT_MCP_VERSION}`);

export const PLAYWRIGHT: McpServerSpec = {
  id: 'playwright',
  label: `Playwright MCP ${PLAYWRIGHT_MCP_VERSION}`,
  prepare: (log) => scratchPeer(PLAYWRIGHT_PKG, PLAYWRIGHT_MCP_VERSION, PLAYWRIGHT_SCRATCH, log),
  // Its command line has no switch for extra Chromium arguments; its config file does
  // (`browser.launchOptions`, Playwright's own launch options), and the flags come on top.
  params: (launch, args) => {
    const cwd = workDir(PLAYWRIGHT_SCRATCH);
    // It writes the snapshot of every action there (megabytes for the table); none is read later.
    const output = path.join(cwd, 'output');
    rmSync(output, { recursive: true, force: true });
    const config = path.join(cwd, 'bench-config.json');
    writeFileSync(config, `${JSON.stringify({ browser: { browserName: 'chromium', launchOptions: { args: [...args] } } }, null, 2)}\n`);
    return {
      command: process.execPath,
      args: [
        path.join(packageDir(PLAYWRIGHT_PKG, PLAYWRIGHT_SCRATCH), 'cli.js'),
        '--config',
        config,
        '--executable-path',
        launch.executablePath,
        '--headless',
        '--isolated',
        '--no-sandbox',
        '--output-dir',
        output,
      ],
      cwd,
      env: {},
      stderr: 'pipe',
    };
  },
};

const DEVTOOLS_PKG = 'chrome-devtools-mcp';
const DEVTOOLS_SCRATCH = path.join(SCRATCH_ROOT, `chrome-devtools-mcp-${DEVTOOLS_MCP_VERSION}`);

export const DEVTOOLS: McpServerSpec = {
  id: 'devtools',
  label: `chrome-devtools-mcp ${DEVTOOLS_MCP_VERSION}`,
  prepare: (log) => scratchPeer(DEVTOOLS_PKG, DEVTOOLS_MCP_VERSION, DEVTOOLS_SCRATCH, log),
  // Usage statistics, CrUX look-ups and its update check would each reach the network; all off.
  params: (launch, args) => ({
    command: process.execPath,
    args: [
      path.join(packageDir(DEVTOOLS_PKG, DEVTOOLS_SCRATCH), 'build', 'src', 'bin', 'chrome-devtools-mcp.js'),
      '--executablePath',
      launch.executablePath,
      '--headless',
      '--isolated',
      '--no-usage-statistics',
      '--no-performance-crux',
      ...args.map((arg) => `--chromeArg=${arg}`),
    ],
    cwd: workDir(DEVTOOLS_SCRATCH),
    env: { CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1', CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
    stderr: 'pipe',
  }),
};

/** In the order they run and their columns appear: Tendril first, its ratios against each of the others. */
export const SERVERS: readonly McpServerSpec[] = [TENDRIL, PLAYWRIGHT, DEVTOOLS];
