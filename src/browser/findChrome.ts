import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { BrowserLaunchError } from '../errors.js';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function candidates(): string[] {
  if (process.platform === 'darwin') {
    const apps = ['Google Chrome', 'Chromium', 'Google Chrome Canary', 'Google Chrome for Testing'];
    return apps.flatMap((app) => [
      `/Applications/${app}.app/Contents/MacOS/${app}`,
      path.join(process.env.HOME ?? '', `Applications/${app}.app/Contents/MacOS/${app}`),
    ]);
  }
  if (process.platform === 'win32') {
    const roots = [process.env.LOCALAPPDATA, process.env.PROGRAMFILES, process.env['PROGRAMFILES(X86)']];
    return roots
      .filter((root): root is string => Boolean(root))
      .flatMap((root) => [
        path.join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'),
        path.join(root, 'Chromium', 'Application', 'chrome.exe'),
      ]);
  }
  const names = ['google-chrome-stable', 'google-chrome', 'chromium', 'chromium-browser', 'chrome'];
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return [...names.flatMap((name) => dirs.map((dir) => path.join(dir, name))), '/opt/google/chrome/chrome', '/snap/bin/chromium'];
}

/**
 * Finds the browser to launch: the explicit option first, then CHROME_PATH, then the usual install
 * locations of Chrome and Chromium for this platform.
 */
export function findChrome(explicit?: string): string {
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new BrowserLaunchError(
      `localBrowserLaunchOptions.executablePath is "${explicit}", but no executable file is there. ` +
        'Point it at a Chrome or Chromium binary.',
    );
  }
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new BrowserLaunchError(`CHROME_PATH is "${fromEnv}", but no executable file is there. Fix or unset it.`);
  }
  const found = candidates().find(isExecutable);
  if (found) return found;
  throw new BrowserLaunchError(
    'No Chrome or Chromium was found. Install one (e.g. `apt-get install chromium`, or Google Chrome), ' +
      'then set CHROME_PATH or localBrowserLaunchOptions.executablePath if it is not in a usual place.',
  );
}
