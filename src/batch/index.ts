// `tendril/batch`: batch jobs on a queue in Redis (BullMQ), run by workers on one machine or many.
// Node only; `bullmq` and `redis` are optional peers, loaded by the first queue or worker opened.

export {
  BatchQueue,
  type AddOptions,
  type AddReport,
  type BatchQueueOptions,
  type BatchResult,
  type BatchStatus,
  type JobReturn,
} from './queue.js';
export { BatchWorker, type BatchWorkerOptions, type WorkerJobEvent } from './worker.js';
export { checkJob, jobId, jobOfLine, type BatchJob } from './job.js';
export type { QueueLimits } from './limits.js';
export type { Isolation } from './contextPool.js';
export type { JobFailure } from './failures.js';
export type { TraceMode } from './jobTrace.js';
export type { TokenAccount, TokenBudget, TokenUsage } from '../types.js';
