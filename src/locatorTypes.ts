// Public types of the locators' Stagehand 3 methods; src/types.ts re-exports them, so callers
// import every public type from one place.

/** The mouse button of a locator's `click({ button })`. */
export type MouseButton = 'left' | 'right' | 'middle';

/** A file given to `locator.setInputFiles()` in memory instead of by path. */
export interface SetInputFilePayload {
  name: string;
  /** Default: application/octet-stream. */
  mimeType?: string;
  /** The file's bytes (a Buffer is a Uint8Array); a string is taken as UTF-8 text. */
  buffer: ArrayBuffer | Uint8Array | string;
  /** Milliseconds since 1970; default: now. */
  lastModified?: number;
}

/** What `locator.setInputFiles()` takes: paths, payloads, or an empty array to clear the input. */
export type SetInputFilesArgument = string | string[] | SetInputFilePayload | SetInputFilePayload[];

/** How `locator.highlight()` draws (colours 0-255, alpha 0-1). */
export interface HighlightOptions {
  /** How long the highlight stays, in ms. Default 800. */
  durationMs?: number;
  borderColor?: { r: number; g: number; b: number; a?: number };
  contentColor?: { r: number; g: number; b: number; a?: number };
}
