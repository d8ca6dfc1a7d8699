/** The window property that holds the cursor overlay's API (not enumerable): the page script's and the host's (stagehand/cursor.ts). */
export const CURSOR_KEY = '__tendrilCursor';
