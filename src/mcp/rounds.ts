// Sampling on protocol revision 2026-07-28 (Streamable HTTP's stateless requests, and any client that
// negotiates that revision): the server cannot send the client a request there. A tool call that
// needs the client's model answers `input_required` with the sampling request embedded; the client
// has its model answer it and calls the tool again with the answer. The tool then runs again from
// the start: it reads the page again and builds the same prompt (the page has not changed), whose
// answer is now known. Each model request of a call costs one such round; requests made in parallel
// (the chunks of a large page) share one. The answers so far travel in the signed `requestState`.
// Only the MCP server imports this file: the extension bundle never sees it.

import { createHash, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type InputRequest,
  type InputRequiredResult,
  type RequestOptions,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** A sampling request to the client's model (sampling.ts makes one of the client's session; this file one of rounds). */
export type Sample = (
  params: CreateMessageRequest['params'],
  options: RequestOptions,
) => Promise<CreateMessageResult | CreateMessageResultWithTools>;

/** Rounds one tool call may take: one per model request, parallel ones sharing a round. */
export const MAX_ROUNDS = 8;

/**
 * Chunks of a large page asked in one round. An unanswered request costs the server nothing (the
 * round just ends), so more than a model's usual 4 at once: fewer rounds, each carrying more.
 */
export const CHUNKS_PER_ROUND = 16;

/** How long the client may take over one round (its user may be asked) before its state expires. */
const STATE_TTL_SECONDS = 15 * 60;

type SamplingParams = CreateMessageRequest['params'];
type SamplingAnswer = CreateMessageResult | CreateMessageResultWithTools;

/** What the client carries from one round to the next. Signed, not secret: it holds nothing the client did not send. */
interface RoundState {
  /** The tool call the state belongs to: its name and a digest of its arguments. */
  call: string;
  /** Rounds done so far. */
  round: number;
  /** The sampling requests of the last round, whose answers the retried call must carry. */
  asked: string[];
  /** Every answer so far, by the digest of its request. */
  answers: Record<string, SamplingAnswer>;
}

// One key per process: the rounds of a call all come back to this process, which served the first.
const codec = createRequestStateCodec<RoundState>({ key: randomBytes(32), ttlSeconds: STATE_TTL_SECONDS });

/** Thrown by the sampler when the client's answer is not known yet; ends the round. */
class NeedsInput extends Error {
  constructor(readonly key: string) {
    super("The MCP client's model has not answered this request yet (a round of sampling requests is under way).");
  }
}

/** Whether `error` is the end of a round, not a failure: the sampler passes it on unchanged. */
export function isRoundEnd(error: unknown): boolean {
  return error instanceof NeedsInput;
}

/** Whether this request is of the 2026-07-28 revision, where the server asks the client through `input_required`. */
export function isModernRequest(ctx: ServerContext): boolean {
  return ctx.mcpReq.envelope !== undefined;
}

/** Whether the client declared sampling on this request's envelope. */
export function declaresSampling(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | { sampling?: unknown }
    | undefined;
  return Boolean(capabilities?.sampling);
}

/** One round of a tool call that may ask the client's model through `input_required`. */
export class SamplingRounds {
  readonly #pending = new Map<string, SamplingParams>();

  private constructor(
    private readonly call: string,
    private readonly round: number,
    private readonly answers: Map<string, SamplingAnswer>,
  ) {}

  /**
   * The round this request is: the first, or a retry whose state and answers check out. A tool
   * error when they do not (altered or expired state, another call's state, a missing answer).
   */
  static async start(ctx: ServerContext, tool: string, args: unknown): Promise<SamplingRounds | CallToolResult> {
    const call = `${tool}:${digest(args)}`;
    const raw = ctx.mcpReq.requestState();
    if (raw === undefined) return new SamplingRounds(call, 0, new Map());
    let state: RoundState;
    try {
      if (typeof raw !== 'string') throw new Error('not a string');
      state = await codec.verify(raw, ctx);
    } catch {
      return refuse(
        'The retried call carries a requestState this server did not issue, or one that expired (after ' +
          `${STATE_TTL_SECONDS / 60} minutes, or when the server restarted). Call the tool again without it.`,
      );
    }
    if (state.call !== call)
      return refuse(
        'The retried call carries the requestState of another tool call. Send the same tool and arguments again, or call the tool anew.',
      );
    const answers = new Map(Object.entries(state.answers));
    for (const key of state.asked) {
      const response = inputResponse(ctx.mcpReq.inputResponses, key);
      if (response.kind !== 'sampling') {
        return refuse(
          `The MCP client retried the call without an answer to the sampling request "${key}" (the client or its user may have declined it).`,
        );
      }
      answers.set(key, response.result);
    }
    return new SamplingRounds(call, state.round, answers);
  }

  /** The client's model as this round knows it: an answer given in an earlier round, or the end of the round. */
  readonly sample: Sample = async (params) => {
    const key = `sampling-${digest(params)}`;
    const known = this.answers.get(key);
    if (known) return known;
    this.#pending.set(key, params);
    // The page's other chunks are asked in parallel: let them reach here too, so that one round
    // carries them all. Nothing but promise callbacks lies between them and this point.
    await new Promise((resolve) => setImmediate(resolve));
    throw new NeedsInput(key);
  };

  /**
   * What the tool returns when `error` ended the round for want of answers: the sampling requests
   * for the client, or a tool error once the rounds are used up. Undefined for any other error.
   */
  async inputRequired(error: unknown): Promise<InputRequiredResult | CallToolResult | undefined> {
    if (!causes(error).some((each) => each instanceof NeedsInput) || this.#pending.size === 0) return undefined;
    const round = this.round + 1;
    if (round > MAX_ROUNDS) {
      return refuse(
        `The tool call needed more than ${MAX_ROUNDS} rounds of sampling requests to the MCP client. The page may change between ` +
          'rounds (each round reads it again, and a changed page is a new prompt): wait until it settles, or scope the call with `selector`.',
      );
    }
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, params] of this.#pending) inputRequests[key] = inputRequired.createMessage(params);
    const state: RoundState = { call: this.call, round, asked: [...this.#pending.keys()], answers: Object.fromEntries(this.answers) };
    return inputRequired({ inputRequests, requestState: await codec.mint(state) });
  }
}

/** The error and its causes, outermost first: the AI SDK and our errors wrap the model's. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let each = error;
    each !== undefined && chain.length < 16 && !chain.includes(each);
    each = (each as { cause?: unknown } | null)?.cause
  )
    chain.push(each);
  return chain;
}

function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value ?? null))
    .digest('base64url')
    .slice(0, 32);
}

function refuse(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `SamplingRoundError: ${message}` }], isError: true };
}
