// The progress bar of `tendril batch status --wait`, drawn on a terminal's stderr.

import type { BatchStatus } from '../batch/queue.js';

const WIDTH = 30;

export function progressLine(status: BatchStatus): string {
  const finished = status.done + status.failed;
  const total = finished + status.waiting + status.delayed + status.active + status.waitingForHost;
  const filled = total ? Math.round((finished / total) * WIDTH) : WIDTH;
  return `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${finished}/${total} (${status.done} done, ${status.failed} failed, ${status.active} active${status.waitingForHost ? `, ${status.waitingForHost} waiting for their host` : ''})`;
}
