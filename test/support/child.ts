// A TypeScript script of the repository run as a user runs it: a child process (through tsx), its
// output and its exit code.

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** Starts `node --import tsx <script> ...args` with `env` on top of this process's environment (and `input` on its stdin). */
export function runScript(script: string, args: string[], env: Record<string, string> = {}, input?: string): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves with the first match of `pattern` in the child's stdout (or rejects when it exits first). */
export function waitForLine(started: Run, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(started.stdout());
      if (match) resolve(match);
    };
    started.child.stdout!.on('data', check);
    void started.exit.then((code) => reject(new Error(`exited ${code} before printing ${pattern}: ${started.stderr()}`)));
    check();
  });
}
