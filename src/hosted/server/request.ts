// Reading a request: its headers, its JSON body (bounded), and that body checked by a protocol
// schema, each failure a 400 that says what is wrong.

import type { IncomingMessage } from 'node:http';
import type { z } from 'zod/v4';
import { apiError } from './sessions.js';

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw apiError('bad_request', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : {};
  } catch (error) {
    throw apiError('bad_request', `The request body is not JSON: ${(error as Error).message}`);
  }
}

export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
  throw apiError('bad_request', `The request body is not valid: ${issues.join('; ')}.`);
}
