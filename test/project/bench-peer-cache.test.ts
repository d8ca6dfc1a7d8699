// The bench's kept peer results (scripts/bench/core/peer-cache.ts): reused only under the same key.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusHash, PeerCache } from '../../scripts/bench/core/peer-cache.js';

const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'peer-cache-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const base = { corpus: 'c1', chromium: 'Chromium 1', machine: 'cpu × 2' };
const outcome = { ok: true, times: [12], bytes: 300, recall: { matched: 9, total: 10 }, missing: null };

function kept(dir: string, over: Partial<typeof base> = {}, settings = 's1', peer = 'Stagehand 3.7.3') {
  return new PeerCache({ ...base, ...over }, true, dir).lookup('extract', 'stagehand', peer, settings, 'page-a');
}

describe('bench peer cache', () => {
  it('gives back a stored result to a later run with the same key, and says it reused it', () => {
    const dir = tmp();
    const first = new PeerCache(base, true, dir);
    expect(first.lookup('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-a')).toBeUndefined();
    first.store('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-a', outcome);
    first.save();
    const second = new PeerCache(base, true, dir);
    expect(second.lookup('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-a')).toEqual(outcome);
    const today = new Date().toISOString().slice(0, 10);
    expect(second.notes()).toEqual([
      expect.stringMatching(new RegExp(`^extract: Stagehand 3\\.7\\.3's results reused on 1 corpus article, measured ${today}`)),
    ]);
  });

  it("names what a kept id stands for: the batch measurement keeps a peer's runs round by round", () => {
    const dir = tmp();
    const first = new PeerCache(base, true, dir);
    const round = { result: { ms: 30_000, pages: 120, failed: 0 } };
    first.store('batch', 'playwright', 'playwright-core 1.65.1', 's1', 'round 1', round);
    first.store('batch', 'playwright', 'playwright-core 1.65.1', 's1', 'round 2', { error: 'the browser did not start' });
    first.save();
    const second = new PeerCache(base, true, dir);
    expect(second.lookup('batch', 'playwright', 'playwright-core 1.65.1', 's1', 'round 1', 'round')).toEqual(round);
    expect(second.lookup('batch', 'playwright', 'playwright-core 1.65.1', 's1', 'round 2', 'round')).toEqual({
      error: 'the browser did not start',
    });
    expect(second.lookup('batch', 'playwright', 'playwright-core 1.65.1', 's1', 'round 3', 'round')).toBeUndefined();
    expect(second.notes('batch')).toEqual([
      expect.stringMatching(/^batch: playwright-core 1\.65\.1's results reused on 2 rounds, measured /),
    ]);
  });

  it('reuses nothing when the version, corpus, Chromium, machine or settings differ, or when told to measure anew', () => {
    const dir = tmp();
    const run = new PeerCache(base, true, dir);
    run.store('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-a', outcome);
    run.save();
    expect(kept(dir)).toEqual(outcome);
    expect(kept(dir, {}, 's1', 'Stagehand 3.7.4')).toBeUndefined();
    expect(kept(dir, { corpus: 'c2' })).toBeUndefined();
    expect(kept(dir, { chromium: 'Chromium 2' })).toBeUndefined();
    expect(kept(dir, { machine: 'cpu × 4' })).toBeUndefined();
    expect(kept(dir, {}, 's2')).toBeUndefined();
    expect(new PeerCache(base, false, dir).lookup('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-a')).toBeUndefined();
  });

  it("refuses a second key for one file in the same run, which would throw away the first one's pages", () => {
    const run = new PeerCache(base, true, tmp());
    run.store('extract', 'stagehand', 'Stagehand 3.7.3', 'timed 3', 'table 1a2b', outcome);
    expect(() => run.lookup('extract', 'stagehand', 'Stagehand 3.7.3', 'timed 1', 'page-a')).toThrow(/under two keys in one run/);
    expect(run.lookup('extract-own-pages', 'stagehand', 'Stagehand 3.7.3', 'timed 1', 'page-a')).toBeUndefined();
  });

  it('replaces a file kept under another key once a page is measured under the new one', () => {
    const dir = tmp();
    const old = new PeerCache(base, true, dir);
    old.store('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-a', outcome);
    old.save();
    const next = new PeerCache({ ...base, chromium: 'Chromium 2' }, true, dir);
    next.store('extract', 'stagehand', 'Stagehand 3.7.3', 's1', 'page-b', outcome);
    next.save();
    const file = JSON.parse(readFileSync(path.join(dir, 'extract.stagehand.json'), 'utf8')) as { key: { chromium: string }; pages: object };
    expect(file.key.chromium).toBe('Chromium 2');
    expect(Object.keys(file.pages)).toEqual(['page-b']);
  });

  it('hashes the corpus by its file names and contents', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'a.html.gz'), 'one');
    const h1 = corpusHash(dir);
    writeFileSync(path.join(dir, 'a.html.gz'), 'two');
    const h2 = corpusHash(dir);
    writeFileSync(path.join(dir, 'b.html.gz'), 'two');
    expect(new Set([h1, h2, corpusHash(dir)]).size).toBe(3);
    expect(corpusHash(path.join(dir, 'absent'))).toBe('');
  });
});
