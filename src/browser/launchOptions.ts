// The checks of localBrowserLaunchOptions' switches that become Chrome flags: a bad value fails the
// constructor with its fix, rather than a Chrome that starts without it or does not start at all.

import { InvalidOptionError } from '../errors.js';
import type { LocalBrowserLaunchOptions } from '../types.js';

export function checkLaunchOptions(options: LocalBrowserLaunchOptions | undefined): void {
  if (options === undefined) return;
  const { locale, proxy, deviceScaleFactor, port, ignoreDefaultArgs } = options;
  const fail = (message: string) => {
    throw new InvalidOptionError(`localBrowserLaunchOptions.${message}`);
  };
  if (locale !== undefined && (typeof locale !== 'string' || !/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(locale))) {
    fail(`locale must be a language tag such as "en-US" or "de", not ${JSON.stringify(locale)}.`);
  }
  if (proxy !== undefined) {
    const { server, bypass, username, password } = proxy as { server?: unknown; bypass?: unknown; username?: unknown; password?: unknown };
    if (typeof server !== 'string' || !server.trim())
      fail('proxy.server must be the proxy\'s address, such as "http://proxy.example:3128".');
    if (bypass !== undefined && typeof bypass !== 'string') fail('proxy.bypass must be a string of hosts, such as "localhost,*.internal".');
    if (username !== undefined || password !== undefined) {
      // Never shown: the values are secrets.
      if ((username !== undefined && typeof username !== 'string') || (password !== undefined && typeof password !== 'string'))
        fail('proxy.username and proxy.password must be strings.');
      if (typeof server === 'string' && !/^(https?:\/\/)?[^\s;=/]+\/?$/i.test(server.trim())) {
        fail(
          'proxy.username and proxy.password work with one http:// or https:// proxy (such as "http://proxy.example:3128"); Chrome sends no credentials to a SOCKS proxy, nor to a list of them.',
        );
      }
    }
  }
  if (deviceScaleFactor !== undefined && !(typeof deviceScaleFactor === 'number' && deviceScaleFactor > 0 && deviceScaleFactor <= 10)) {
    fail(`deviceScaleFactor must be a number above 0 and at most 10, not ${String(deviceScaleFactor)}.`);
  }
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    fail(`port must be a TCP port number (0 for any free one), not ${String(port)}.`);
  }
  if (
    ignoreDefaultArgs !== undefined &&
    typeof ignoreDefaultArgs !== 'boolean' &&
    !(Array.isArray(ignoreDefaultArgs) && ignoreDefaultArgs.every((arg) => typeof arg === 'string'))
  ) {
    fail('ignoreDefaultArgs must be true, false, or a list of the switches to leave out.');
  }
}
