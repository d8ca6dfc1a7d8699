// `npm run openapi`: writes protocol/openapi.json, the hosted service's API as OpenAPI 3.1, from the
// zod schemas in protocol/ (the one source of truth). A test fails when the file is out of date.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod/v4';
import * as wire from '../protocol/index.js';

export const OPENAPI_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'protocol', 'openapi.json');

const COMPONENTS = {
  CreateSessionRequest: wire.CreateSessionRequest,
  Session: wire.Session,
  UpdateSessionRequest: wire.UpdateSessionRequest,
  ExtractRequest: wire.ExtractRequest,
  ActRequest: wire.ActRequest,
  ObserveRequest: wire.ObserveRequest,
  NavigateRequest: wire.NavigateRequest,
  StreamEvent: wire.StreamEvent,
  ErrorBody: wire.ErrorBody,
  ModelRequest: wire.ModelRequest,
  ModelReply: wire.ModelReply,
} as const;

const ref = (name: keyof typeof COMPONENTS) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof COMPONENTS) => ({ content: { 'application/json': { schema: ref(name) } } });

function errors(...codes: wire.ErrorCode[]): Record<string, unknown> {
  return Object.fromEntries(codes.map((code) => [String(wire.STATUS_OF[code]), { description: code, ...json('ErrorBody') }]));
}

const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

export function buildOpenApi(): Record<string, unknown> {
  const operations = Object.fromEntries(
    (Object.keys(wire.OPERATIONS) as wire.OperationName[]).map((name) => [
      `/v1/sessions/{id}/${name}`,
      {
        post: {
          operationId: name,
          summary: `${name} on the session's page; progress and the result stream as server-sent events`,
          parameters: [
            idParam,
            { name: wire.HEADERS.modelApiKey, in: 'header', required: false, schema: { type: 'string' } },
            { name: wire.HEADERS.cacheControl, in: 'header', required: false, schema: { type: 'string', enum: ['bypass'] } },
          ],
          requestBody: { required: true, ...json(`${name[0]!.toUpperCase()}${name.slice(1)}Request` as keyof typeof COMPONENTS) },
          responses: {
            '200': {
              description: 'log events, then one result or error event',
              headers: { [wire.HEADERS.cacheStatus]: { schema: { type: 'string', enum: ['HIT', 'MISS'] } } },
              content: { 'text/event-stream': { schema: ref('StreamEvent') } },
            },
            ...errors('bad_request', 'unauthorized', 'not_found', 'conflict', 'rate_limited', 'browser_gone', 'internal'),
          },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'Tendril hosted browsers', version: String(wire.PROTOCOL_VERSION) },
    security: [{ apiKey: [] }],
    paths: {
      '/v1/sessions': {
        post: {
          operationId: 'createSession',
          parameters: [{ name: wire.HEADERS.maxWait, in: 'header', required: false, schema: { type: 'integer', minimum: 0 } }],
          requestBody: { required: true, ...json('CreateSessionRequest') },
          responses: {
            '201': { description: 'the session', ...json('Session') },
            ...errors('bad_request', 'unauthorized', 'rate_limited', 'unavailable', 'internal'),
          },
        },
      },
      '/v1/sessions/{id}': {
        get: {
          operationId: 'getSession',
          parameters: [idParam],
          responses: { '200': { description: 'the session', ...json('Session') }, ...errors('unauthorized', 'not_found') },
        },
        post: {
          operationId: 'updateSession',
          parameters: [idParam],
          requestBody: { required: true, ...json('UpdateSessionRequest') },
          responses: {
            '200': { description: 'the session, released', ...json('Session') },
            ...errors('bad_request', 'unauthorized', 'not_found'),
          },
        },
      },
      ...operations,
      [wire.MODEL_PATH]: {
        post: {
          operationId: 'model',
          summary: 'one structured model request, run by the server with its own providers (not cached)',
          parameters: [{ name: wire.HEADERS.modelApiKey, in: 'header', required: false, schema: { type: 'string' } }],
          requestBody: { required: true, ...json('ModelRequest') },
          responses: {
            '200': { description: 'the parsed answer and the tokens it used', ...json('ModelReply') },
            ...errors('bad_request', 'unauthorized', 'forbidden', 'timeout', 'model_error', 'internal'),
          },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: wire.HEADERS.apiKey } },
      schemas: Object.fromEntries(
        Object.entries(COMPONENTS).map(([name, schema]) => {
          const { $schema: _, ...body } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
          return [name, body];
        }),
      ),
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_PATH, JSON.stringify(buildOpenApi(), null, 2) + '\n');
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_PATH)}`);
}
