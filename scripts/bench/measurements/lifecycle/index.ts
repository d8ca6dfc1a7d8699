// init(), the first goto of a fresh client to a small local page, and close().
import { withSession } from '../../core/timed-session.js';
import type { Measurement } from '../../core/timing.js';

export const lifecycle: Measurement = {
  id: 'lifecycle',
  rows: [
    { key: 'init', label: '`init()` (launch Chrome + connect)' },
    { key: 'goto', label: 'first `goto` (local page with iframe + shadow root, until `load`)' },
    { key: 'close', label: '`close()` (until it resolves)' },
    { key: 'exited', label: '`close()` until every Chrome process has exited' },
  ],
  run: (lib, env) =>
    withSession(lib, env, async (s) => {
      const init = await s.init();
      const goto = await s.goto(env.server.url('/basic.html'));
      const { close, exited } = await s.close();
      return { init, goto, close, exited };
    }),
};
