// POST /api/run (and GET, which is how the platform's scheduler calls): the Node.js runtime.

import { runJob } from '../lib/job.js';

export function POST(request: Request): Promise<Response> {
  return runJob(request, process.env);
}

export function GET(request: Request): Promise<Response> {
  return runJob(request, process.env);
}
