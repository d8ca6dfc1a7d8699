// What every entry of the package exports besides its own `Sdk`: the errors, the public types, and
// the pure helpers. One list, so the entries cannot drift apart.
export { applyDelta } from './snapshot/delta.js';
export * from './errors.js';
export type * from './types.js';
export type { Context } from './driver/context.js';
export type { Page, PageEvents } from './driver/page.js';
export type { TargetId } from './driver/pageSession.js';
export type { MouseButton, DragOptions } from './driver/pageInput.js';
export type { WaitForSelectorOptions, SelectorState } from './driver/pageWaits.js';
export type { Frame } from './driver/frame.js';
export type { FrameLocator, Locator } from './driver/locator.js';
export type { PageFunction } from './driver/evaluate.js';
export type { Dialog, DialogType } from './driver/dialog.js';
import type { Download as DownloadOf } from './driver/download.js';
import type { Page } from './driver/page.js';
/** A file a page downloads (`page.on('download')`). */
export type Download = DownloadOf<Page>;
import type { ConsoleMessage as ConsoleMessageOf } from './driver/console.js';
/** One call of a page's console API (`page.on('console')`). */
export type ConsoleMessage = ConsoleMessageOf<Page>;
export type { NavigationResponse } from './driver/response.js';
