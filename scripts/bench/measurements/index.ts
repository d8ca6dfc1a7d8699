// Every measurement, in the order they run and their tables appear. Adding one: a folder here, and
// one line below.
import type { Comparison } from '../core/measurement.js';
import type { Measurement } from '../core/timing.js';
import { act } from './act/index.js';
import { batch } from './batch/index.js';
import { extractLlm } from './extract-llm/index.js';
import { extract } from './extract/index.js';
import { floor } from './floor/index.js';
import { serverlessFunction } from './function/index.js';
import { hostedCache } from './hosted-cache/index.js';
import { lifecycle } from './lifecycle/index.js';
import { mcp } from './mcp/index.js';
import { realPages } from './real-pages/index.js';
import { tracing } from './tracing/index.js';

/** A fresh client per iteration, one sample per row: one table for all of them. */
export const MEASUREMENTS: readonly Measurement[] = [lifecycle];

/** Each with its own loop and its own table, after the timing table. */
export const COMPARISONS: readonly Comparison[] = [
  extract,
  floor,
  realPages,
  extractLlm,
  act,
  hostedCache,
  serverlessFunction,
  mcp,
  batch,
  tracing,
];

export { FOOTPRINT_END, FOOTPRINT_ID, FOOTPRINT_START, footprint } from './footprint/index.js';
