// A loopback site that logs in with a session cookie and a localStorage token, and whose /app says
// "logged in as NAME" only with both (its own script compares them): the storage-state tests'.
// /login?user=NAME sets the cookie and the token; login(NAME) makes the same session on the
// server's side and returns the storage state a browser would have after /login, in Playwright's shape.
// /set-cookie?c=LINE&c=LINE answers with each LINE as a Set-Cookie header (a frame of it under the
// other origin's page sets partitioned cookies); /echo-cookie shows the Cookie header it was sent.

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StorageState } from '../../src/index.js';

export interface LoginSite {
  /** The same server under two origins (two sites to the browser). */
  a: string;
  b: string;
  sessions: Map<string, { user: string; token: string }>;
  login(user: string): StorageState;
  close(): Promise<void>;
}

export async function startLoginSite(): Promise<LoginSite> {
  const sessions = new Map<string, { user: string; token: string }>();
  const open = (user: string) => {
    const id = randomUUID();
    const session = { user, token: randomUUID() };
    sessions.set(id, session);
    return { id, session };
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const sid = /(?:^|; )sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const html = (body: string) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(`<!doctype html><title>site</title>${body}`);
    if (url.pathname === '/login') {
      const { id, session } = open(url.searchParams.get('user') ?? 'nobody');
      res.setHeader('set-cookie', `sid=${id}; Path=/; HttpOnly`);
      return html(
        `<p id="status">saving</p><script>localStorage.setItem('token', ${JSON.stringify(session.token)}); document.getElementById('status').textContent = 'saved';</script>`,
      );
    }
    if (url.pathname === '/app') {
      const session = sid ? sessions.get(sid) : undefined;
      // The page shows the user only when the cookie's session and the stored token agree.
      return html(
        `<p id="status">checking</p><script>const expected = ${JSON.stringify(session ?? null)};` +
          `document.getElementById('status').textContent = expected && localStorage.getItem('token') === expected.token ? 'logged in as ' + expected.user : 'logged out';</script>`,
      );
    }
    if (url.pathname === '/set-cookie') {
      res.setHeader('set-cookie', url.searchParams.getAll('c'));
      return html('<p id="status">set</p>');
    }
    if (url.pathname === '/echo-cookie') {
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(req.headers.cookie ?? '');
      return;
    }
    html('<p>home</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const a = `http://127.0.0.1:${port}`;
  return {
    a,
    b: `http://localhost:${port}`,
    sessions,
    login(user) {
      const { id, session } = open(user);
      return {
        cookies: [{ name: 'sid', value: id, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }],
        origins: [{ origin: a, localStorage: [{ name: 'token', value: session.token }] }],
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
