import type { Connection } from '../cdp/connection.js';

/** A browser we hold a connection to, however we got it. */
export interface BrowserHandle {
  readonly connection: Connection;
  /** 'launched': we own the process and end it on close. 'attached': someone else's; we only detach. */
  readonly kind: 'launched' | 'attached';
  /** Process id of a browser we launched. */
  readonly pid?: number;
  /** The temporary profile of a browser we launched, removed with it (even if this process dies). */
  readonly tempProfile?: string;
  /** Ends our hold on the browser. Never throws; idempotent. */
  close(): Promise<void>;
}
