// Files the pages download. Chrome saves them where the Sdk says (Browser.setDownloadBehavior, a
// folder of the Sdk's own unless the user names one), never silently in the user's Downloads, and
// reports each one: it begins (name, URL, frame), then completes or is cancelled. On a browser other
// clients share, the folder is kept in force (downloadKeeper.ts).

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { ProtocolError, SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { deferred, type Deferred } from '../util/time.js';
import { FolderKeeper } from './downloadKeeper.js';

/** Where downloads go, as the Sdk's opener knows it (see ContextOptions.downloads). */
export interface DownloadPlace {
  /** Where the browser saves them; undefined leaves it to the browser (one on another machine). */
  folder: string | undefined;
  /** Other DevTools clients may share the browser (attached to it): keep our folder in force. */
  shared?: boolean;
  /**
   * Moves a saved file into `folder` unless it is there already, resolving with where it is then:
   * only when the files of the browser are on this machine's disk.
   */
  relocate?: (file: string) => Promise<string>;
}

/**
 * What downloads need of a page (page.ts's Page has it): `P` is the page type itself, which
 * `download.page()` gives back (publicApi.ts names `Download` with the Sdk's Page).
 */
export interface DownloadingPage<P> {
  /** The page's target id. */
  readonly id: string;
  frameById(frameId: string): unknown;
  emit(event: 'download', download: Download<P>): void;
}

/** A file a page downloads, as `page.on('download')` hands it over. */
export class Download<P = unknown> {
  readonly #done: Deferred<string>;
  #failure: string | null = null;

  /** @internal */
  constructor(
    private readonly root: CdpSession,
    private readonly event: Protocol.Browser.DownloadWillBeginEvent,
    private readonly owner: P | undefined,
    private readonly relocate: DownloadPlace['relocate'],
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
  page(): P | undefined {
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
  settle(event: Protocol.Browser.DownloadProgressEvent, folder: string | undefined, logger: Logger): boolean {
    if (event.state === 'completed') {
      const saved = event.filePath ?? joinPath(folder, this.event.suggestedFilename);
      if (!this.relocate) this.#done.resolve(saved);
      else {
        void this.relocate(saved)
          .catch((error: unknown) => {
            logger.error('download', "A download saved outside the Sdk's folder could not be moved into it", {
              file: saved,
              reason: (error as Error).message,
            });
            return saved;
          })
          .then((where) => this.#done.resolve(where));
      }
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
 * (among the context's pages). `folder` undefined keeps the browser's own choice (a browser on another
 * machine), still reporting downloads. On a shared browser, resolves with the keeper that
 * `Context.newPage` tells of the tabs it opens.
 */
export async function watchDownloads<P extends DownloadingPage<P>>(
  root: CdpSession,
  place: DownloadPlace,
  context: { pages(): P[] },
  logger: Logger,
): Promise<FolderKeeper | undefined> {
  const { folder } = place;
  // Started first: it asks which tabs no client holds before our own auto-attach holds them all.
  const keeper = place.shared && folder !== undefined ? new FolderKeeper(root, folder) : undefined;
  const started = keeper?.start();
  const pending = new Map<string, Download<P>>();
  root.on('Browser.downloadWillBegin', (event) => {
    const page = context.pages().find((each) => each.frameById(event.frameId) !== undefined);
    // Another client's tab: its file is reported where the browser saved it, and left there.
    const ours = !keeper || (page !== undefined && keeper.owns(page.id));
    if (keeper && ours) keeper.assert();
    const download = new Download(root, event, page, ours ? place.relocate : undefined);
    pending.set(event.guid, download);
    logger.info('download', 'A page started a download', { url: event.url, file: event.suggestedFilename, folder });
    page?.emit('download', download);
  });
  root.on('Browser.downloadProgress', (event) => {
    const download = pending.get(event.guid);
    if (download?.settle(event, folder, logger)) pending.delete(event.guid);
  });
  const [, set] = await Promise.all([
    started,
    root
      .send('Browser.setDownloadBehavior', {
        behavior: folder === undefined ? 'default' : 'allow',
        downloadPath: folder,
        eventsEnabled: true,
      })
      .then(
        () => true,
        (error: unknown) => {
          // A browser reached through an extension (the relay) has no browser session to ask:
          // its downloads go where the user's browser puts them, unreported, and the rest works.
          if (!(error instanceof ProtocolError)) throw error;
          logger.info('download', 'This browser does not report downloads; pages download as it decides', {
            reason: error.message,
          });
          return false;
        },
      ),
  ]);
  if (set) return keeper;
  keeper?.stop();
  return undefined;
}

function joinPath(folder: string | undefined, name: string): string {
  if (!folder) return name;
  return folder.endsWith('/') || folder.endsWith('\\') ? folder + name : `${folder}/${name}`;
}
