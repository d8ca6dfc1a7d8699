export { Sdk } from './sdk.js';
export * from './publicApi.js';
// Stagehand 3's names, for code that swaps its import (docs/migrating-from-stagehand-3.md).
export { Stagehand, Stagehand as V3, type StagehandLogger } from './stagehand/stagehand.js';
export type { StagehandConnection, StagehandContext, StagehandFrameLocator, StagehandPage } from './stagehand/page.js';
export type { StagehandResponse } from './stagehand/response.js';
export * from './stagehand/errors.js';
export { AISdkClient, CustomOpenAIClient, LLMClient, type StagehandModelConfiguration } from './stagehand/model.js';
export type * from './stagehand/types.js';
export type * from './agent/types.js';
export { tool } from './stagehand/tool.js';
// The types the Stagehand classes' methods take and give (src/stagehand/page.ts).
export type { PageSnapshotOptions, SnapshotResult } from './stagehand/snapshot.js';
export type { BrowserClipboard, ClipboardOptions, ClipboardPasteOptions } from './stagehand/clipboard.js';
export type { StagehandLoadState } from './stagehand/frameRegistry.js';
export type { ResolvedNode, StagehandLocator } from './stagehand/resolveNode.js';
export type * from './stagehand/webmcp.js';
