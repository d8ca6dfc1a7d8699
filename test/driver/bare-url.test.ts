// Addresses typed without a scheme (the command line's URLs, the MCP server's navigate): https:// for
// a public host, http:// for this machine and private networks, whose servers seldom have a certificate.

import { describe, expect, it } from 'vitest';
import { withScheme } from '../../src/util/bareUrl.js';

describe('an address without a scheme', () => {
  it('is http:// on loopback, private and link-local addresses and localhost, https:// elsewhere, and left alone with a scheme', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1:8765', 'http://127.0.0.1:8765'],
      ['localhost:3000/app?x=1', 'http://localhost:3000/app?x=1'],
      ['app.localhost', 'http://app.localhost'],
      ['10.1.2.3/status', 'http://10.1.2.3/status'],
      ['172.16.0.9', 'http://172.16.0.9'],
      ['192.168.1.1', 'http://192.168.1.1'],
      ['169.254.169.254', 'http://169.254.169.254'],
      ['[::1]:8080/', 'http://[::1]:8080/'],
      ['[fd00::5]', 'http://[fd00::5]'],
      ['example.org/page', 'https://example.org/page'],
      ['172.32.0.1', 'https://172.32.0.1'],
      ['8.8.8.8', 'https://8.8.8.8'],
      ['  example.org  ', 'https://example.org'],
      ['http://example.org', 'http://example.org'],
      ['https://127.0.0.1:8765', 'https://127.0.0.1:8765'],
      ['about:blank', 'about:blank'],
      ['data:text/html,hi', 'data:text/html,hi'],
    ];
    expect(cases.map(([raw]) => [raw, withScheme(raw)])).toEqual(cases);
  });
});
