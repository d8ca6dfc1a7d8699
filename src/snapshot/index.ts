export { captureSnapshot, type CaptureSnapshotOptions } from './capture.js';
export { Snapshot } from './snapshot.js';
