// The hosted service's wire contract, one source of truth for the client, the server and the
// reference function. `npm run openapi` writes protocol/openapi.json from these schemas.

export * from './common.js';
export * from './operations.js';
export * from './sessions.js';
export * from './model.js';
