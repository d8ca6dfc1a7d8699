// The same job in the Edge runtime: with env "HOSTED" the client needs no Node, only fetch and the
// platform's WebSocket.

import { runJob } from '../lib/job.js';

export const config = { runtime: 'edge' };

export default function handler(request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'POST') {
    return Promise.resolve(
      new Response(JSON.stringify({ ok: false, error: 'Use GET or POST.' }), {
        status: 405,
        headers: { 'content-type': 'application/json', allow: 'GET, POST' },
      }),
    );
  }
  return runJob(request, process.env);
}
