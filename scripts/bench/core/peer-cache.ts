// The peers' results on the corpus, kept from run to run: Stagehand on 181 articles is most of the
// bench's hour, and its numbers do not change while the peer, the corpus, the browser and the
// machine stay the same. Tendril's own results are never taken from here: it is what changes.
//
// One file per measurement and peer under results/peers/ (committed, like the other results, so a
// fresh clone or another worktree on the same machine reuses them). A page's result is reused only
// when everything in its key matches what this run would measure with; anything else is measured
// and the file rewritten with the new key.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS_DIR, RESULTS_DIR } from './config.js';

/** The library whose results are always measured fresh. */
export const OURS_ID = 'tendril';

export const PEER_RESULTS_DIR = path.join(RESULTS_DIR, 'peers');

/** What a kept result was measured with; all of it must match for the result to be reused. */
export interface PeerKey {
  /** "Stagehand 3.7.3": the peer and its version. */
  readonly peer: string;
  /** sha256 of the corpus's file names and contents (corpusHash). */
  readonly corpus: string;
  readonly chromium: string;
  /** CPU model and count: times from another machine say nothing about this one. */
  readonly machine: string;
  /** The measurement's settings that change a result (iterations, deadlines). */
  readonly settings: string;
}

interface PeerFile {
  readonly key: PeerKey;
  /** Day each page was measured (YYYY-MM-DD), by page id. */
  readonly dates: Record<string, string>;
  /** By page id: the measurement's outcome, as it was. */
  readonly pages: Record<string, unknown>;
}

/** sha256 over the sorted names and contents of every file of the corpus (html/ and ground truth); "" when absent. */
export function corpusHash(dir: string = CORPUS_DIR): string {
  if (!existsSync(dir)) return '';
  const hash = createHash('sha256');
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) files.push(child);
    }
  };
  walk('');
  for (const file of files.sort()) {
    hash.update(file + '\0');
    hash.update(readFileSync(path.join(dir, file)));
  }
  return hash.digest('hex');
}

export function machineKey(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}`;
}

/** One run's view of the kept results. */
export class PeerCache {
  readonly #files = new Map<string, PeerFile>();
  /** Pages reused in this run, by measurement and peer label: count and the dates they came from. */
  readonly #reused = new Map<string, { measurement: string; peer: string; unit: string; pages: number; dates: Set<string> }>();
  readonly #today = new Date().toISOString().slice(0, 10);

  /**
   * `enabled` false (BENCH_FRESH_PEERS=1) measures every peer anew, and still keeps what it measured.
   * `base` is this run's corpus, browser and machine.
   */
  constructor(
    private readonly base: Pick<PeerKey, 'corpus' | 'chromium' | 'machine'>,
    private readonly enabled: boolean,
    private readonly dir: string = PEER_RESULTS_DIR,
  ) {}

  #name(measurement: string, libId: string): string {
    return `${measurement}.${libId}.json`;
  }

  #key(peer: string, settings: string): PeerKey {
    return { peer, ...this.base, settings };
  }

  #file(measurement: string, libId: string, key: PeerKey): PeerFile {
    const name = this.#name(measurement, libId);
    let file = this.#files.get(name);
    // One key per file: a second one in the same run would replace the first one's pages.
    if (file && JSON.stringify(file.key) !== JSON.stringify(key)) {
      throw new Error(
        `peer cache: ${name} is used under two keys in one run (${JSON.stringify(file.key.settings)} and ${JSON.stringify(key.settings)}); give each its own measurement id`,
      );
    }
    if (!file) {
      const where = path.join(this.dir, name);
      try {
        file = JSON.parse(readFileSync(where, 'utf8')) as PeerFile;
      } catch {
        file = undefined;
      }
      // Kept under another key: none of it applies any more, and it is replaced as pages are measured.
      if (!file || JSON.stringify(file.key) !== JSON.stringify(key)) file = { key, dates: {}, pages: {} };
      this.#files.set(name, file);
    }
    return file;
  }

  /**
   * The kept result of `peer` on `pageId`, when its key matches; counted as reused. `unit` names
   * what a page id stands for in the notes (a round, for the batch measurement).
   */
  lookup<O>(measurement: string, libId: string, peer: string, settings: string, pageId: string, unit = 'corpus article'): O | undefined {
    if (!this.enabled || !this.base.corpus) return undefined;
    const file = this.#file(measurement, libId, this.#key(peer, settings));
    if (!(pageId in file.pages)) return undefined;
    const id = `${measurement}\0${peer}\0${unit}`;
    const seen = this.#reused.get(id) ?? { measurement, peer, unit, pages: 0, dates: new Set<string>() };
    seen.pages++;
    seen.dates.add(file.dates[pageId] ?? 'unknown date');
    this.#reused.set(id, seen);
    return file.pages[pageId] as O;
  }

  /** Keeps what `peer` just measured on `pageId` (written out by save()). */
  store(measurement: string, libId: string, peer: string, settings: string, pageId: string, outcome: unknown): void {
    if (!this.base.corpus) return;
    const file = this.#file(measurement, libId, this.#key(peer, settings));
    file.pages[pageId] = outcome;
    file.dates[pageId] = this.#today;
  }

  /** Writes every file this run touched. */
  save(): void {
    if (!this.#files.size) return;
    mkdirSync(this.dir, { recursive: true });
    for (const [name, file] of this.#files) {
      if (Object.keys(file.pages).length) writeFileSync(path.join(this.dir, name), `${JSON.stringify(file, null, 1)}\n`);
    }
  }

  /** "extract: Stagehand 3.7.3 reused on 181 articles, measured 2026-11-24": one line per measurement and peer. */
  notes(measurement?: string): string[] {
    return [...this.#reused.values()]
      .filter((r) => measurement === undefined || r.measurement === measurement)
      .map((r) => {
        const dates = [...r.dates].sort();
        const when = dates.length === 1 ? dates[0] : `${dates[0]} to ${dates[dates.length - 1]}`;
        return `${r.measurement}: ${r.peer}'s results reused on ${r.pages} ${r.unit}${r.pages === 1 ? '' : 's'}, measured ${when} (same version, corpus, Chromium and machine; BENCH_FRESH_PEERS=1 measures them anew)`;
      });
  }
}
