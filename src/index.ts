export { Sdk } from './sdk.js';
export * from './errors.js';
export type * from './types.js';
export type { Context } from './driver/context.js';
export type { Page } from './driver/page.js';
export type { Frame } from './driver/frame.js';
export type { Locator } from './driver/locator.js';
export type { PageFunction } from './driver/evaluate.js';
