export { Sdk } from './sdk.js';
export * from './publicApi.js';
