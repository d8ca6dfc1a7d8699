// Sessions: one remote browser (context) each, created, read and released over REST; its
// `connectUrl` is a WebSocket DevTools endpoint for that session alone.

// A namespace import: bundlers can then leave out the parts of zod never used (its locales above all).
import * as z from 'zod/v4';

export const Viewport = z.object({ width: z.int().min(100).max(10_000), height: z.int().min(100).max(10_000) });

/** Hosts a session's pages may reach; patterns `example.org`, `*.example.org` or an IP address. */
export const DomainPolicy = z.object({
  allow: z.array(z.string()).optional(),
  block: z.array(z.string()).optional(),
});
export type DomainPolicy = z.infer<typeof DomainPolicy>;

export const CreateSessionRequest = z.object({
  /** A label for the session, for services that bill or group by project; Tendril's own server has no projects and only echoes it. */
  projectId: z.string().min(1).optional(),
  region: z.string().min(1).optional(),
  /** Keep the session when the client closes; it ends at `timeout` or on release. */
  keepAlive: z.boolean().optional(),
  /** Session lifetime in ms (the server caps it at its SESSION_TIMEOUT_MS). */
  timeout: z.int().positive().optional(),
  browserSettings: z
    .object({
      /** Block requests to ad and tracker hosts. */
      blockAds: z.boolean().optional(),
      viewport: Viewport.optional(),
    })
    .optional(),
  /** The server refuses navigations and requests to hosts outside it, in every frame. */
  domainPolicy: DomainPolicy.optional(),
});
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>;

export const SessionStatus = z.enum(['RUNNING', 'COMPLETED', 'TIMED_OUT', 'ERROR']);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const Session = z.object({
  id: z.string(),
  status: SessionStatus,
  region: z.string(),
  projectId: z.string().optional(),
  /** ws(s)://…/v1/sessions/<id>/cdp?token=<signed, expiring token>: this session's browser only. */
  connectUrl: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  keepAlive: z.boolean(),
});
export type Session = z.infer<typeof Session>;

export const UpdateSessionRequest = z.object({ status: z.literal('REQUEST_RELEASE') });
export type UpdateSessionRequest = z.infer<typeof UpdateSessionRequest>;
