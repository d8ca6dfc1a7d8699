// An AI SDK language model whose every request passes the instrumentation seam as a `Model.request`
// call, as ask.ts's requests do: how the agent's tool loop and its verdict, which the AI SDK runs,
// reach a trace with the messages sent, the answer, the tokens and the budget left. The call's result
// is the same `{ value, usage }` as ask.ts's, so listeners read both alike; the AI SDK gets the
// model's own reply. A wrapper of our own, as meteredModel.ts's (it keeps a version-2 model version 2).

import type { CallDescription, Instrumentation } from '../util/instrumentation.js';
import { usageOf } from './meteredModel.js';
import type { TokenMeter } from './tokenMeter.js';
import { type WrappedModel, wrapModel } from './modelWrapper.js';

interface Params {
  prompt: unknown;
  tools?: Array<{ name?: string }>;
  toolChoice?: unknown;
  abortSignal?: AbortSignal;
}

interface Part {
  type: string;
  text?: string;
  delta?: string;
  toolName?: string;
  input?: unknown;
  usage?: unknown;
  finishReason?: unknown;
  error?: unknown;
}

interface Inner extends WrappedModel {
  doGenerate(params: Params): Promise<{ content: Part[]; usage: unknown; finishReason?: unknown }>;
  doStream(params: Params): Promise<{ stream: ReadableStream<Part> }>;
}

export interface TracedModelOptions {
  instrumentation: Instrumentation;
  /** provider/model, as ask.ts labels its requests. */
  label: string;
  /** What a listener that writes must never write (the API key). */
  secrets: string[];
  meter?: TokenMeter;
}

/** What a request's call resolves to: the answer and its tokens (ask.ts's ModelReply shape). */
interface Reply {
  value: { text?: string; toolCalls?: Array<{ toolName?: string; input: unknown }>; finishReason?: unknown };
  usage: { promptTokens: number; completionTokens: number };
}

/** The prompt as a trace shows it: images and files by their type and size, not their bytes. */
function shown(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shown);
  if (!value || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  const media = value as { mediaType?: unknown; data?: unknown };
  if (typeof media.mediaType === 'string' && media.data !== undefined) {
    const size =
      typeof media.data === 'string'
        ? `${media.data.length} characters`
        : media.data instanceof Uint8Array
          ? `${media.data.length} bytes`
          : 'a URL';
    return { ...value, data: `<${media.mediaType}, ${size}>` };
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (key !== 'providerOptions') out[key] = shown(item);
  return out;
}

function parsed(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

/** The answer of a reply's parts (a generated reply's content, or a stream's assembled). */
function answerOf(parts: Part[], finishReason: unknown): Reply['value'] {
  const text = parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');
  const toolCalls = parts
    .filter((part) => part.type === 'tool-call')
    .map((part) => ({ toolName: part.toolName, input: parsed(part.input) }));
  // Version 3 gives { unified, raw }, version 2 the name alone.
  const reason = (finishReason as { unified?: unknown } | undefined)?.unified ?? finishReason;
  return { ...(text ? { text } : {}), ...(toolCalls.length ? { toolCalls } : {}), finishReason: reason };
}

export function tracedModel(model: object, options: TracedModelOptions): object {
  const inner = model as Inner;
  const { instrumentation, label, meter } = options;
  const describe = (params: Params) => (): CallDescription => ({
    api: 'Model.request',
    title: `model ${label.split(' ')[0]}`,
    params: {
      model: label,
      messages: shown(params.prompt),
      ...(params.tools?.length ? { tools: params.tools.map((tool) => tool.name) } : {}),
      ...(params.toolChoice !== undefined ? { toolChoice: params.toolChoice } : {}),
    },
    details: { secrets: options.secrets },
    leaf: true,
  });
  const noteBudget = (notes: Record<string, unknown>) => {
    if (meter) notes.budgetLeft = meter.limits.map(({ scope, limit, used }) => ({ scope, limit, left: Math.max(0, limit - used) }));
  };
  return wrapModel(inner, {
    doGenerate: async (params: Params) => {
      if (!instrumentation.on) return inner.doGenerate(params);
      let reply!: Awaited<ReturnType<Inner['doGenerate']>>;
      await instrumentation.run(describe(params), async (call): Promise<Reply> => {
        reply = await inner.doGenerate(params);
        if (call) noteBudget(call.notes);
        return { value: answerOf(reply.content, reply.finishReason), usage: usageOf(reply.usage) };
      });
      return reply;
    },
    doStream: (params: Params) => {
      if (!instrumentation.on) return inner.doStream(params);
      return new Promise<Awaited<ReturnType<Inner['doStream']>>>((resolve, reject) => {
        const recorded: Promise<Reply> = instrumentation.run(describe(params), async (call) => {
          const reply = await inner.doStream(params);
          const parts: Part[] = [];
          let finish: Part | undefined;
          let done!: (reply: Reply) => void;
          let failed!: (error: unknown) => void;
          const ended = new Promise<Reply>((yes, no) => ((done = yes), (failed = no)));
          let settled = false;
          // The call ends with the stream (its finish, an error, a cancel or an abort), and is
          // written before the finish goes on: the step that made it is still open to hold it.
          const end = async (error?: unknown) => {
            if (!settled) {
              settled = true;
              params.abortSignal?.removeEventListener('abort', aborted);
              if (call) noteBudget(call.notes);
              if (error === undefined) done({ value: answerOf(parts, finish?.finishReason), usage: usageOf(finish?.usage) });
              else failed(error);
            }
            await recorded.catch(() => undefined);
          };
          const aborted = () => void end(params.abortSignal?.reason ?? new Error('aborted'));
          params.abortSignal?.addEventListener('abort', aborted, { once: true });
          const stream = watched(reply.stream, parts, (part) => (finish = part), end);
          resolve({ ...reply, stream });
          return ended;
        });
        // The reply's own failure goes to the AI SDK; one after it (its stream's) is the stream's to report.
        recorded.catch(reject);
      });
    },
  });
}

/** The stream as it was, assembling text and tool calls into `parts` and calling `end` when it ends. */
function watched(
  source: ReadableStream<Part>,
  parts: Part[],
  finished: (part: Part) => void,
  end: (error?: unknown) => Promise<void>,
): ReadableStream<Part> {
  const reader = source.getReader();
  let text = '';
  const flushText = () => {
    if (text) parts.push({ type: 'text', text });
    text = '';
  };
  return new ReadableStream<Part>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Part>;
      try {
        next = await reader.read();
      } catch (error) {
        await end(error);
        controller.error(error);
        return;
      }
      if (next.done) {
        flushText();
        await end();
        controller.close();
        return;
      }
      const part = next.value;
      if (part.type === 'text-delta') text += part.delta ?? part.text ?? '';
      else if (part.type === 'tool-call') {
        flushText();
        parts.push(part);
      } else if (part.type === 'error') await end(part.error ?? new Error('the model stream reported an error'));
      else if (part.type === 'finish') {
        flushText();
        finished(part);
        await end();
      }
      controller.enqueue(part);
    },
    async cancel(reason) {
      await end(reason ?? new Error('the stream was cancelled'));
      await reader.cancel(reason);
    },
  });
}
