// A fake OpenAI-compatible model server for tests: a real HTTP server on loopback that answers
// the two wire APIs the Vercel AI SDK's `@ai-sdk/openai` provider speaks (Responses and Chat
// Completions), and Anthropic's Messages API (`@ai-sdk/anthropic`, not streamed). Tests point `createOpenAI({ baseURL: fake.url })` at it, so the whole client path
// (request building, fetch, parsing, retries, aborts) runs for real; nothing inside the SDK is mocked.
// A reply may also call tools (`{ toolCalls }`, Responses and Chat Completions, streamed or not), so
// that a tool loop (generateText with tools) can be scripted step by step.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

export interface FakeRequest {
  index: number; // 0-based order of arrival
  endpoint: 'responses' | 'chat' | 'messages';
  body: any; // parsed JSON body
  headers: Record<string, string | string[] | undefined>;
  model: string;
  system: string; // all system/developer/instructions text joined with "\n"
  user: string; // all user message text joined with "\n"
  prompt: string; // system + "\n" + user (only the non-empty ones): everything the model reads
  schema: unknown | undefined; // the requested JSON schema, if structured output was asked
  promptTokens: number; // o200k_base tokens of prompt, plus of JSON.stringify(schema) when present
  aborted: boolean; // client closed the connection before we replied
  receivedAt: number; // Date.now()
  tools: string[]; // names of the function tools offered (Responses and Chat Completions)
  toolChoice: unknown; // the request's tool_choice, as sent
  toolResults: FakeToolResult[]; // every tool output sent back so far, in order
}

/** A tool's output as the client sent it back: `output` is the text the model reads. */
export interface FakeToolResult {
  callId: string;
  output: string;
}

/** One tool call of a scripted reply; `id` defaults to one made from the request's index. */
export interface FakeToolCall {
  name: string;
  input: unknown;
  id?: string;
}

/**
 * `totalTokens`: what the call costs in all, as its usage reports it (the completion's tokens are
 * what the prompt leaves of it), instead of the text's own count.
 */
type ReplyOptions = { delayMs?: number; completionTokens?: number; totalTokens?: number };
export type FakeReply = ReplyOptions &
  (
    | { json: unknown } // structured answer: JSON.stringify'd into the message text
    | { text: string } // raw message text (e.g. garbage, not JSON)
    | { toolCalls: FakeToolCall[]; text?: string } // the model calls tools (text: what it says beside them)
    | { status: number; error?: string; headers?: Record<string, string> } // HTTP error, OpenAI error body
    | { hang: true } // never answer (until the client gives up or the server closes)
  );
export type FakeScript = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeModel {
  url: string; // e.g. http://127.0.0.1:PORT/v1 (what goes in baseURL)
  requests: FakeRequest[];
  /** Replaces the script; an array is a queue consumed in order (500 once it runs dry). */
  script(handler: FakeScript | FakeReply[]): void;
  /** Clears the recorded requests, the nextRequest/nextAbort queues and the script. */
  reset(): void;
  /**
   * The next request in arrival order not yet handed out by nextRequest(), waiting for it if
   * none is pending. A queue rather than "the next one from now" so that a test never misses a
   * request that raced ahead of the call.
   */
  nextRequest(): Promise<FakeRequest>;
  /** Same queue semantics, for requests whose client hung up before the reply. */
  nextAbort(): Promise<FakeRequest>;
  /** Closes the server and every open socket, hanging ones too. */
  close(): Promise<void>;
}

const ROUTES: Record<string, FakeRequest['endpoint']> = {
  '/v1/responses': 'responses',
  '/v1/chat/completions': 'chat',
  '/v1/messages': 'messages',
};

// Building the o200k encoder parses a multi-megabyte rank table, so do it once per process.
let encoder: Tiktoken | undefined;
function countTokens(text: string): number {
  encoder ??= new Tiktoken(o200kBase);
  return encoder.encode(text, 'all').length; // 'all': special-token text in a prompt must not throw
}

/** Arrival queue with waiters: push() hands an item to the oldest waiter or keeps it for next(). */
function queue<T>() {
  const ready: T[] = [];
  const waiting: Array<(item: T) => void> = [];
  return {
    push(item: T) {
      const waiter = waiting.shift();
      if (waiter) waiter(item);
      else ready.push(item);
    },
    next(): Promise<T> {
      if (ready.length > 0) return Promise.resolve(ready.shift()!);
      return new Promise((resolve) => waiting.push(resolve));
    },
    clear() {
      ready.length = 0;
    },
  };
}

/** Text of a message's content: a string, or parts (`input_text`, `text`, ...) carrying `text`. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

function toFakeRequest(endpoint: FakeRequest['endpoint'], body: any, req: IncomingMessage, index: number): FakeRequest {
  const system: string[] = [];
  const user: string[] = [];
  let schema: unknown;
  // Responses: `instructions` + `input` (a string, or items); Chat: `messages`.
  if (endpoint === 'responses' && typeof body.instructions === 'string') system.push(body.instructions);
  // Messages: `system` (a string or text blocks) beside `messages`.
  if (endpoint === 'messages' && body.system) system.push(textOf(body.system));
  const messages: any[] =
    endpoint !== 'responses'
      ? (body.messages ?? [])
      : typeof body.input === 'string'
        ? [{ role: 'user', content: body.input }]
        : (body.input ?? []);
  for (const message of messages) {
    const text = textOf(message?.content);
    if (text === '') continue;
    if (message.role === 'system' || message.role === 'developer') system.push(text);
    else if (message.role === 'user') user.push(text);
  }
  if (endpoint === 'responses' && body.text?.format?.type === 'json_schema') schema = body.text.format.schema;
  if (endpoint === 'chat' && body.response_format?.type === 'json_schema') schema = body.response_format.json_schema?.schema;
  // Messages: native structured output, or (older models) a forced tool named "json".
  if (endpoint === 'messages') schema = body.output_config?.format?.schema ?? jsonTool(body)?.input_schema;
  const prompt = [system.join('\n'), user.join('\n')].filter((part) => part !== '').join('\n');
  const tools = Array.isArray(body.tools) ? body.tools.map((tool: any) => String(tool?.name ?? tool?.function?.name ?? '')) : [];
  const toolResults: FakeToolResult[] = messages
    .filter((item) => item?.type === 'function_call_output' || item?.role === 'tool')
    .map((item) => ({
      callId: String(item.call_id ?? item.tool_call_id ?? ''),
      output: typeof item.output === 'string' ? item.output : textOf(item.content) || JSON.stringify(item.output ?? item.content),
    }));
  return {
    index,
    endpoint,
    body,
    headers: { ...req.headers },
    model: String(body.model ?? ''),
    system: system.join('\n'),
    user: user.join('\n'),
    prompt,
    schema,
    promptTokens: countTokens(prompt) + (schema === undefined ? 0 : countTokens(JSON.stringify(schema))),
    aborted: false,
    receivedAt: Date.now(),
    tools: endpoint === 'messages' ? tools.filter((name: string) => name !== 'json') : tools,
    toolChoice: body.tool_choice,
    toolResults,
  };
}

function jsonTool(body: any): { name: string; input_schema: unknown } | undefined {
  return Array.isArray(body.tools) ? body.tools.find((tool: any) => tool?.name === 'json') : undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** OpenAI's error envelope; the SDK reads `error.message` (type/code are loosely typed). */
function sendError(res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
  const type = status === 404 ? 'not_found_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 429 ? 'rate_limit_exceeded' : status === 404 ? 'not_found' : null;
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

/** Server-sent events; the Responses API names each event, Chat Completions ends with [DONE]. */
function sendEvents(res: ServerResponse, events: unknown[], named: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    const name = named ? `event: ${(event as { type: string }).type}\n` : '';
    res.write(`${name}data: ${JSON.stringify(event)}\n\n`);
  }
  if (!named) res.write('data: [DONE]\n\n');
  res.end();
}

function answer(res: ServerResponse, request: FakeRequest, text: string, completionTokens: number): void {
  const n = request.index;
  const created = Math.floor(request.receivedAt / 1000);
  const stream = request.body.stream === true;
  const pieces = text.match(/[\s\S]{1,16}/g) ?? [];
  const total = request.promptTokens + completionTokens;
  if (request.endpoint === 'messages') {
    const tool = jsonTool(request.body);
    const content = tool ? [{ type: 'tool_use', id: `toolu_fake_${n}`, name: 'json', input: JSON.parse(text) }] : [{ type: 'text', text }];
    return sendJson(res, 200, {
      id: `msg_fake_${n}`,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content,
      stop_reason: tool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: request.promptTokens, output_tokens: completionTokens },
    });
  }
  if (request.endpoint === 'responses') {
    const content = [{ type: 'output_text', text, annotations: [] }];
    const message = { type: 'message', id: `msg_fake_${n}`, role: 'assistant', status: 'completed', content };
    const response = responsesBody(request, created, [message], completionTokens);
    if (!stream) return sendJson(res, 200, response);
    const events = [
      { type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } },
      { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
      ...pieces.map((delta) => ({ type: 'response.output_text.delta', item_id: message.id, output_index: 0, delta })),
      { type: 'response.output_item.done', output_index: 0, item: message },
      { type: 'response.completed', response },
    ];
    return sendEvents(
      res,
      events.map((event, i) => ({ ...event, sequence_number: i })),
      true,
    );
  }
  const usage = { prompt_tokens: request.promptTokens, completion_tokens: completionTokens, total_tokens: total };
  const head = { id: `chatcmpl-fake-${n}`, created, model: request.model };
  if (!stream) {
    return sendJson(res, 200, {
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    });
  }
  const chunk = (choices: unknown[], extra = {}) => ({ ...head, object: 'chat.completion.chunk', choices, ...extra });
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    ...pieces.map((content) => chunk([{ index: 0, delta: { content }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
  ];
  // Like OpenAI, usage only comes (as a last, choice-less chunk) when the client asked for it.
  if (request.body.stream_options?.include_usage) events.push(chunk([], { usage }));
  sendEvents(res, events, false);
}

/** A finished Responses API answer with these output items. */
function responsesBody(request: FakeRequest, created: number, output: unknown[], completionTokens: number) {
  return {
    id: `resp_fake_${request.index}`,
    object: 'response',
    created_at: created,
    status: 'completed',
    model: request.model,
    output,
    incomplete_details: null,
    // ai@5's provider (v2) requires usage with numeric input/output tokens; v3 accepts null.
    usage: {
      ...{ input_tokens: request.promptTokens, output_tokens: completionTokens, total_tokens: request.promptTokens + completionTokens },
      ...{ input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    },
  };
}

/** A reply that calls tools: function_call items (Responses) or tool_calls (Chat Completions). */
function answerTools(res: ServerResponse, request: FakeRequest, given: FakeToolCall[], text: string, completionTokens: number): void {
  const n = request.index;
  const created = Math.floor(request.receivedAt / 1000);
  const stream = request.body.stream === true;
  const calls = given.map((call, i) => ({ id: call.id ?? `call_fake_${n}_${i}`, name: call.name, args: JSON.stringify(call.input ?? {}) }));
  const total = request.promptTokens + completionTokens;
  if (request.endpoint === 'messages') return sendError(res, 501, 'fake model: tool calls are scripted for the OpenAI APIs only');
  if (request.endpoint === 'responses') {
    const message = text
      ? [
          {
            type: 'message',
            id: `msg_fake_${n}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        ]
      : [];
    const items = calls.map((call, i) => ({
      type: 'function_call',
      id: `fc_fake_${n}_${i}`,
      call_id: call.id,
      name: call.name,
      arguments: call.args,
      status: 'completed',
    }));
    const output = [...message, ...items];
    const response = responsesBody(request, created, output, completionTokens);
    if (!stream) return sendJson(res, 200, response);
    const events: unknown[] = [{ type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } }];
    output.forEach((item, index) => {
      if (item.type === 'message') {
        events.push({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } });
        events.push({ type: 'response.output_text.delta', item_id: item.id, output_index: index, delta: text });
      } else {
        const call = item as (typeof items)[number];
        events.push({ type: 'response.output_item.added', output_index: index, item: { ...call, arguments: '', status: 'in_progress' } });
        events.push({ type: 'response.function_call_arguments.delta', item_id: call.id, output_index: index, delta: call.arguments });
        events.push({ type: 'response.function_call_arguments.done', item_id: call.id, output_index: index, arguments: call.arguments });
      }
      events.push({ type: 'response.output_item.done', output_index: index, item });
    });
    events.push({ type: 'response.completed', response });
    return sendEvents(
      res,
      events.map((event, i) => ({ ...(event as object), sequence_number: i })),
      true,
    );
  }
  const usage = { prompt_tokens: request.promptTokens, completion_tokens: completionTokens, total_tokens: total };
  const head = { id: `chatcmpl-fake-${n}`, created, model: request.model };
  const toolCalls = calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }));
  if (!stream) {
    return sendJson(res, 200, {
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text || null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }],
      usage,
    });
  }
  const chunk = (choices: unknown[], extra = {}) => ({ ...head, object: 'chat.completion.chunk', choices, ...extra });
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }]),
    ...toolCalls.map((call, index) => chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
  ];
  if (request.body.stream_options?.include_usage) events.push(chunk([], { usage }));
  sendEvents(res, events, false);
}

export async function startFakeModel(options: { script?: FakeScript | FakeReply[] } = {}): Promise<FakeModel> {
  const requests: FakeRequest[] = [];
  const arrivals = queue<FakeRequest>();
  const aborts = queue<FakeRequest>();
  const noScript: FakeScript = () => ({ status: 500, error: 'fake model: no script' });
  let current: FakeScript = noScript;
  let closing = false;
  let closed: Promise<void> | undefined;

  function setScript(handler: FakeScript | FakeReply[]): void {
    if (typeof handler === 'function') {
      current = handler;
      return;
    }
    const replies = [...handler]; // a copy: the caller's array stays intact
    current = () => replies.shift() ?? { status: 500, error: 'fake model: no scripted reply left' };
  }
  if (options.script) setScript(options.script);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Listen from the start so a hang-up during body reading or a delay is never missed.
    let request: FakeRequest | undefined;
    const gone = new AbortController();
    res.on('close', () => {
      if (res.writableEnded) return;
      gone.abort();
      if (request && !closing) {
        request.aborted = true;
        aborts.push(request);
      }
    });

    const path = (req.url ?? '').split('?')[0]!;
    const endpoint = req.method === 'POST' ? ROUTES[path] : undefined;
    if (!endpoint) return sendError(res, 404, `fake model: no route for ${req.method} ${path}`);
    let body: any;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      if (!gone.signal.aborted) sendError(res, 400, 'fake model: request body is not JSON');
      return;
    }
    if (gone.signal.aborted) return;
    request = toFakeRequest(endpoint, body, req, requests.length);
    requests.push(request);
    arrivals.push(request);

    let reply: FakeReply;
    try {
      reply = await current(request);
    } catch (error) {
      reply = { status: 500, error: `fake model: script threw: ${(error as Error)?.message ?? error}` };
    }
    if ('hang' in reply) return; // the 'close' listener records the client giving up
    if (reply.delayMs) await sleep(reply.delayMs, undefined, { signal: gone.signal }).catch(() => {});
    if (gone.signal.aborted) return;
    if (reply.totalTokens !== undefined) reply = { ...reply, completionTokens: Math.max(0, reply.totalTokens - request.promptTokens) };
    if ('status' in reply) {
      return sendError(res, reply.status, reply.error ?? `fake model: HTTP ${reply.status}`, reply.headers);
    }
    if ('toolCalls' in reply) {
      const said = reply.text ?? '';
      return answerTools(
        res,
        request,
        reply.toolCalls,
        said,
        reply.completionTokens ?? countTokens(said + JSON.stringify(reply.toolCalls)),
      );
    }
    const text = 'json' in reply ? JSON.stringify(reply.json) : reply.text;
    answer(res, request, text, reply.completionTokens ?? countTokens(text));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent && !res.destroyed) sendError(res, 500, `fake model: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script: setScript,
    reset() {
      requests.length = 0; // in place: tests may hold on to `fake.requests`
      arrivals.clear();
      aborts.clear();
      current = noScript;
    },
    nextRequest: () => arrivals.next(),
    nextAbort: () => aborts.next(),
    close() {
      closing = true;
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // idle keep-alive sockets and hanging requests alike
      });
      return closed;
    },
  };
}
