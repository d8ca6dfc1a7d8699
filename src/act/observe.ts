// observe(): the elements of the page that fit an instruction, as actions act() can replay without
// asking a model: an absolute XPath (through iframes and shadow roots), a method, its arguments.

import type { Page } from '../driver/page.js';
import { waitForSettled } from '../driver/settle.js';
import { InvalidOptionError } from '../errors.js';
import { splitIntoChunks, type Chunk } from '../extract/chunk.js';
import { ModelCall, type AnswerCache } from '../llm/ask.js';
import { estimateTokens } from '../llm/budget.js';
import type { ModelSpec } from '../llm/config.js';
import type { Metrics } from '../llm/metrics.js';
import type { Logger } from '../logger.js';
import { idKey } from '../snapshot/ids.js';
import { captureSnapshot, type Snapshot } from '../snapshot/index.js';
import type { ObserveResult } from '../types.js';
import { inParallel } from '../util/parallel.js';
import { CUT_NOTE, shortenOptionLists } from './options.js';
import { OBSERVE_SCHEMA, OBSERVE_SYSTEM, observeUser } from './prompt.js';

/** How long act() and observe() let a busy page settle before reading it. */
const SETTLE_MAX_MS = 1500;

export interface ModelRequestBase {
  page: Page;
  timeoutMs: number;
  model: ModelSpec;
  logger: Logger;
  metrics: Metrics;
  /** The hosted server's cache: a page read before with the same request is answered from it. */
  cache?: AnswerCache;
  /** Most ms to let a busy page settle before reading it (SdkOptions.domSettleTimeout). */
  settleMs?: number;
}

export interface PageForModel {
  snapshot: Snapshot;
  url: string;
  chunks: Chunk[];
  /** A long option list was cut short: the prompt says so (CUT_NOTE). */
  cut: boolean;
}

/**
 * Lets the page settle, reads it, cuts long option lists short (keeping the options `instruction`
 * names) and splits its text to fit the model's input budget.
 */
export async function readForModel(
  call: ModelCall,
  page: Page,
  selector: string | undefined,
  overhead: string,
  logger: Logger,
  instruction?: string,
  settleMs = SETTLE_MAX_MS,
): Promise<PageForModel> {
  await waitForSettled(page, Math.min(settleMs, call.deadline.remaining() / 4));
  const snapshot = await captureSnapshot(page, { selector, timeoutMs: call.deadline.remaining(), logger });
  const { text, cut } = shortenOptionLists(snapshot.text, instruction);
  const budget = call.maxInputTokens - estimateTokens(overhead + (cut ? CUT_NOTE : '')) - 64;
  if (budget < 200) throw new InvalidOptionError(`model.maxInputTokens (${call.maxInputTokens}) leaves no room for the page; raise it.`);
  const chunks = splitIntoChunks(text, budget);
  if (chunks.length > 1)
    logger.info(call.method, `The page is larger than ${call.label}'s input budget; reading it in ${chunks.length} chunks`);
  return { snapshot, url: page.url(), chunks, cut };
}

export function partLabel(index: number, count: number): string | undefined {
  return count > 1 ? `part ${index + 1} of ${count}; the first lines repeat the elements around it` : undefined;
}

interface ObservedElement {
  elementId: string;
  description: string;
  method: string;
  arguments: string[];
}

export async function runObserve(request: ModelRequestBase & { instruction?: string; selector?: string }): Promise<ObserveResult[]> {
  const call = await ModelCall.start({
    spec: request.model,
    method: 'observe',
    timeoutMs: request.timeoutMs,
    what: `observe(${request.instruction ? JSON.stringify(request.instruction.slice(0, 60)) : ''})`,
    metrics: request.metrics,
    logger: request.logger,
  });
  try {
    return await call.run(observeWithin(request, call));
  } finally {
    call.dispose();
  }
}

async function observeWithin(
  request: ModelRequestBase & { instruction?: string; selector?: string },
  call: ModelCall,
): Promise<ObserveResult[]> {
  const overhead =
    OBSERVE_SYSTEM + JSON.stringify(OBSERVE_SCHEMA) + observeUser(request.instruction, request.page.url(), '', partLabel(0, 2));
  const { snapshot, url, chunks, cut } = await readForModel(
    call,
    request.page,
    request.selector,
    overhead,
    request.logger,
    request.instruction,
    request.settleMs,
  );
  const hit = await request.cache?.get(snapshot.text);
  if (Array.isArray(hit)) {
    request.cache?.served?.();
    return hit as ObserveResult[];
  }
  const answers = await inParallel(
    chunks.length,
    call.maxParallelCalls,
    (index) =>
      call.ask(
        OBSERVE_SYSTEM,
        observeUser(request.instruction, url, chunks[index]!.text, partLabel(index, chunks.length), cut),
        OBSERVE_SCHEMA,
      ),
    call.deadline,
  );
  call.recordOperation(chunks.length);
  const elements = answers.flatMap((answer) => ((answer as { elements?: ObservedElement[] } | null)?.elements ?? []).filter(isElement));
  const xpaths = await snapshot.xpathsOf(elements.map((element) => element.elementId));
  const seen = new Set<string>();
  const out: ObserveResult[] = [];
  for (const element of elements) {
    const xpath = xpaths.get(idKey(element.elementId));
    if (!xpath) {
      request.logger.info('observe', 'Left out an element the model named that is not on the page', { elementId: element.elementId });
      continue;
    }
    const selector = `xpath=${xpath}`;
    if (seen.has(selector + element.method)) continue;
    seen.add(selector + element.method);
    out.push({ selector, description: element.description, method: element.method, arguments: element.arguments ?? [] });
  }
  await request.cache?.set(snapshot.text, out);
  return out;
}

function isElement(value: unknown): value is ObservedElement {
  const element = value as ObservedElement;
  return typeof element?.elementId === 'string' && typeof element.method === 'string';
}
