// Loopback static file server for the bench pages (and, read in place, the shared corpus), reachable
// under both loopback names, so a page can embed a frame of another origin from it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface Mount {
  /** URL prefix, starting and ending with "/". */
  readonly prefix: string;
  readonly dir: string;
}

/** A page generated in memory: URL path -> HTML (built once, on first request). */
export type GeneratedPages = ReadonlyMap<string, () => string>;

export interface BenchServer {
  /** e.g. "http://127.0.0.1:39123" */
  readonly origin: string;
  /**
   * The same server under the other loopback name, "http://localhost:39123": another origin and
   * another site, so a frame from it runs in a process of its own (the shop's cart does).
   */
  readonly otherOrigin: string;
  url(pathname: string): string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
};

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}

/** Maps a URL path to a file under one of the mounts; `x.html` is also served from `x.html.gz`. */
async function resolveFile(mounts: readonly Mount[], pathname: string): Promise<{ file: string; gz: boolean } | null> {
  for (const m of mounts) {
    if (!pathname.startsWith(m.prefix)) continue;
    let rel = pathname.slice(m.prefix.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const root = path.resolve(m.dir);
    const file = path.resolve(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) return null;
    if (await isFile(file)) return { file, gz: false };
    if (await isFile(file + '.gz')) return { file: file + '.gz', gz: true };
  }
  return null;
}

export async function startServer(mounts: readonly Mount[], generated: GeneratedPages = new Map()): Promise<BenchServer> {
  // Longest prefix first, so "/corpus/" wins over "/".
  const ordered = [...mounts].sort((a, b) => b.prefix.length - a.prefix.length);
  const built = new Map<string, Buffer>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      res.writeHead(400).end('bad path');
      return;
    }
    const make = generated.get(decoded);
    let body: Buffer;
    let ext: string;
    if (make) {
      body = built.get(decoded) ?? Buffer.from(make());
      built.set(decoded, body);
      ext = '.html';
    } else {
      const hit = await resolveFile(ordered, decoded);
      if (!hit) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const raw = await readFile(hit.file);
      body = hit.gz ? gunzipSync(raw) : raw;
      ext = path.extname(hit.gz ? hit.file.slice(0, -3) : hit.file).toLowerCase();
    }
    res.writeHead(200, {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    otherOrigin: `http://localhost:${port}`,
    url: (pathname) => new URL(pathname, origin).href,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
