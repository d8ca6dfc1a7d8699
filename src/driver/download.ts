// Files the pages download. Chrome saves them where the Sdk says (Browser.setDownloadBehavior, a
// folder of the Sdk's own unless the user names one), never silently in the user's Downloads, and
// reports each one: it begins (name, URL, frame), then completes or is cancelled.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { ProtocolError, SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { deferred, type Deferred } from '../util/time.js';
import type { Page } from './page.js';

/** A file a page downloads, as `page.on('download')` hands it over. */
export class Download {
  readonly #done: Deferred<string>;
  #failure: string | null = null;

  /** @internal */
  constructor(
    private readonly root: CdpSession,
    private readonly event: Protocol.Browser.DownloadWillBeginEvent,
    private readonly owner: Page | undefined,
  ) {
    this.#done = deferred();
    this.#done.promise.catch(() => undefined);
  }

  url(): string {
    return this.event.url;
  }

  /** The file name the server or the link suggested. */
  suggestedFilename(): string {
    return this.event.suggestedFilename;
  }

  /** The page that started it. */
  page(): Page | undefined {
    return this.owner;
  }

  /** Where the file is once saved; rejects when the download fails or is cancelled. */
  path(): Promise<string> {
    return this.#done.promise;
  }

  /** null once saved, or why it was not. */
  failure(): Promise<string | null> {
    return this.#done.promise.then(
      () => null,
      () => this.#failure,
    );
  }

  /** Stops a download still in progress. */
  async cancel(): Promise<void> {
    await this.root.sendQuiet('Browser.cancelDownload', { guid: this.event.guid });
  }

  /** @internal */
  settle(event: Protocol.Browser.DownloadProgressEvent, folder: string | undefined): boolean {
    if (event.state === 'completed') {
      this.#done.resolve(event.filePath ?? joinPath(folder, this.event.suggestedFilename));
      return true;
    }
    if (event.state === 'canceled') {
      this.#failure = 'canceled';
      this.#done.reject(new SdkError(`The download of ${this.event.url} was cancelled (by the page, the browser, or cancel()).`));
      return true;
    }
    return false;
  }
}

/**
 * Sets where the browser saves downloads and hands each one to the page of the frame it came from
 * (among `pages()`). `folder` undefined keeps the browser's own choice (a browser on another
 * machine), still reporting downloads.
 */
export async function watchDownloads(
  root: CdpSession,
  folder: string | undefined,
  pages: () => Page[],
  logger: Logger,
): Promise<void> {
  const pending = new Map<string, Download>();
  root.on('Browser.downloadWillBegin', (event) => {
    const page = pages().find((each) => each.frameManager.frame(event.frameId) !== undefined);
    const download = new Download(root, event, page);
    pending.set(event.guid, download);
    logger.info('download', 'A page started a download', { url: event.url, file: event.suggestedFilename, folder });
    page?.emit('download', download);
  });
  root.on('Browser.downloadProgress', (event) => {
    const download = pending.get(event.guid);
    if (download?.settle(event, folder)) pending.delete(event.guid);
  });
  await root
    .send('Browser.setDownloadBehavior', {
      behavior: folder === undefined ? 'default' : 'allow',
      downloadPath: folder,
      eventsEnabled: true,
    })
    .catch((error: unknown) => {
      // A browser reached through an extension (the relay) has no browser session to ask:
      // its downloads go where the user's browser puts them, unreported, and the rest works.
      if (!(error instanceof ProtocolError)) throw error;
      logger.info('download', 'This browser does not report downloads; pages download as it decides', {
        reason: error.message,
      });
    });
}

function joinPath(folder: string | undefined, name: string): string {
  if (!folder) return name;
  return folder.endsWith('/') || folder.endsWith('\\') ? folder + name : `${folder}/${name}`;
}
