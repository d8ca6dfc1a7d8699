import { describe, expect, it } from 'vitest';
import { runScript } from '../support/child.js';

describe('an endpoint that accepts the connection and then says nothing', () => {
  // In a child process with no 'uncaughtException' handler: an error thrown after init() rejected
  // (ws reporting the handshake it abandoned) would end it with code 1 instead of a report.
  it.each([
    ['tcp', /BrowserConnectError: Timed out after 400 ms connecting to ws:\/\/127\.0\.0\.1:\d+/],
    ['ws', /BrowserConnectError: Connected to ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/mute, but it did not answer as a browser/],
  ])('(%s) rejects init() with BrowserConnectError, and the process lives on', async (mode, expected) => {
    const child = runScript('test/fixtures/attach-silent.ts', [mode]);
    const code = await child.exit;
    expect(child.stderr()).toBe('');
    expect(code).toBe(0);
    const { outcome } = JSON.parse(child.stdout()) as { outcome: string };
    expect(outcome).toMatch(expected);
  });
});
