// Keeping this Sdk's download folder in force on a browser other DevTools clients share (attached
// by cdpUrl). Chrome keeps one download setting per browser context: the client that set it last
// wins, and when a client that set it disconnects, Chrome puts the browser's own choice back (the
// user's Downloads), telling no other client. Nothing announces either, so:
// - the folder is set again right before each action on one of our tabs (the commands reach
//   Chrome in order, so a download that action starts finds our folder), and as each download of
//   ours begins;
// - a download of ours that Chrome still saved elsewhere (a page that downloads on its own, just
//   after another client left) is moved into our folder (DownloadPlace.relocate).
// Our tabs: those the Sdk opened, the popups they open, and those no client was attached to when
// it attached. Another client's tab is left to that client: its downloads go wherever the browser
// puts them, and are reported there.

import type { CdpSession } from '../cdp/session.js';

export class FolderKeeper {
  readonly #own = new Set<string>();

  constructor(
    private readonly root: CdpSession,
    private readonly folder: string,
  ) {}

  /** Call before Target.setAutoAttach: the tabs no client holds yet become ours. */
  start(): Promise<void> {
    const free = this.root.send('Target.getTargets').then(
      ({ targetInfos }) => {
        for (const info of targetInfos) if (info.type === 'page' && !info.attached) this.#own.add(info.targetId);
      },
      () => undefined, // then only the tabs we open are ours
    );
    this.root.on('Target.attachedToTarget', ({ sessionId, targetInfo }) => {
      if (targetInfo.type !== 'page') return;
      const { targetId, openerId } = targetInfo;
      if (openerId !== undefined && this.#own.has(openerId)) this.#own.add(targetId);
      const session = this.root.childSession(sessionId);
      if (session) session.beforeSend = (method, params) => this.#own.has(targetId) && startsDownloads(method, params) && this.assert();
    });
    // context.newPage(url) may open a download at once.
    this.root.beforeSend = (method) => method === 'Target.createTarget' && this.assert();
    return free;
  }

  /** For a browser that refuses download settings (through an extension): there is nothing to keep. */
  stop(): void {
    this.#own.clear();
    this.root.beforeSend = undefined;
  }

  /** A tab this Sdk opened. */
  claim(targetId: string): void {
    this.#own.add(targetId);
  }

  owns(targetId: string): boolean {
    return this.#own.has(targetId);
  }

  /** Sets our folder again; not awaited, so that it goes out just before the command at hand. */
  assert(): void {
    void this.root.sendQuiet('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: this.folder, eventsEnabled: true });
  }
}

/** Commands that may make the page download: navigations, clicks and keys, script with a gesture. */
function startsDownloads(method: string, params: unknown): boolean {
  const { type, userGesture } = (params ?? {}) as { type?: string; userGesture?: boolean };
  switch (method) {
    case 'Page.navigate':
    case 'Page.reload':
    case 'Page.navigateToHistoryEntry':
      return true;
    case 'Input.dispatchMouseEvent':
      return type === 'mousePressed' || type === 'mouseReleased';
    case 'Input.dispatchKeyEvent':
      return type !== 'char';
    case 'Runtime.evaluate':
    case 'Runtime.callFunctionOn':
      return userGesture === true;
  }
  return false;
}
