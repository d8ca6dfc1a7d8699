// act(): one element, one method, real input. When the chosen element is gone or cannot take the
// action, the page is read again and the model asked again, once; then the call fails naming both.

import type { Page } from '../driver/page.js';
import {
  ActionFailedError,
  ContentFrameNotFoundError,
  ElementIdNotFoundError,
  ElementNotActionableError,
  ElementNotFoundError,
  ElementObscuredError,
  MissingLLMConfigurationError,
  PageClosedError,
  SdkIframeError,
  TargetClosedError,
} from '../errors.js';
import { ModelCall } from '../llm/ask.js';
import type { Logger } from '../logger.js';
import { shownId } from '../snapshot/ids.js';
import type { ActionInput, ActResult, ObserveResult } from '../types.js';
import { checkAction, perform } from './perform.js';
import { partLabel, readForModel, type ModelRequestBase } from './observe.js';
import { ACT_SCHEMA, ACT_SYSTEM, actUser } from './prompt.js';

interface Choice {
  elementId: string | null;
  method: string;
  arguments: string[];
  description: string;
}

export interface ActRequest extends ModelRequestBase {
  instruction: string;
  variables: Record<string, string>;
  /** false: an action that fails is not tried again on a fresh read of the page (SdkOptions.selfHeal). */
  selfHeal?: boolean;
}

/**
 * Errors that mean "this element, now, cannot": worth a second look at the page. A covered element
 * (ElementObscuredError, handled before) is not: it is the right one, and what covers it (a cookie
 * banner) is the caller's to dismiss, not the model's to click.
 */
function isHealable(error: unknown): error is Error {
  return (
    error instanceof ElementNotFoundError ||
    error instanceof ElementNotActionableError ||
    error instanceof ContentFrameNotFoundError ||
    error instanceof SdkIframeError ||
    error instanceof TargetClosedError
  );
}

export async function runAct(request: ActRequest): Promise<ActResult> {
  const call = await ModelCall.start({
    spec: request.model,
    method: 'act',
    timeoutMs: request.timeoutMs,
    what: `act(${JSON.stringify(request.instruction.slice(0, 60))})`,
    metrics: request.metrics,
    logger: request.logger,
  });
  try {
    return await call.run(actWithin(request, call));
  } finally {
    call.dispose();
  }
}

async function actWithin(request: ActRequest, call: ModelCall, retry?: string): Promise<ActResult> {
  const { page, logger } = request;
  const overhead = ACT_SYSTEM + JSON.stringify(ACT_SCHEMA) + actUser(request.instruction, page.url(), '', retry, partLabel(0, 2));
  const { snapshot, url, chunks, cut } = await readForModel(call, page, undefined, overhead, logger, request.instruction, request.settleMs);
  if (!retry) {
    const replayed = await replayCached(request, snapshot.text, call.deadline.remaining());
    if (replayed) return replayed;
  }
  let choice: Choice | undefined;
  // Chunks are asked in page order until one of them holds a fitting element.
  for (let index = 0; index < chunks.length && !choice?.elementId; index++) {
    const answer = (await call.ask(
      ACT_SYSTEM,
      actUser(request.instruction, url, chunks[index]!.text, retry, partLabel(index, chunks.length), cut),
      ACT_SCHEMA,
    )) as Choice;
    if (answer && typeof answer === 'object') choice = answer;
  }
  // A second look at the page is part of the same act(): counted once.
  if (!retry) call.recordOperation(chunks.length);
  if (!choice?.elementId) {
    return {
      success: false,
      message: `No element on the page fits "${request.instruction}".`,
      actionDescription: choice?.description ?? request.instruction,
      actions: [],
    };
  }
  // As the page text writes it (a model may still write the top document's ids with their 0-).
  const id = shownId(choice.elementId);
  const xpath = await snapshot.xpathOf(id);
  const action: ObserveResult = {
    selector: xpath ? `xpath=${xpath}` : `[${id}]`,
    description: choice.description,
    method: choice.method,
    arguments: Array.isArray(choice.arguments) ? choice.arguments.map(String) : [],
  };
  const line =
    snapshot.text
      .split('\n')
      .find((each) => each.trimStart().startsWith(`[${id}]`))
      ?.trim() ?? `[${id}]`;
  try {
    if (!xpath) throw new ElementNotFoundError('the id the model chose names no element on the page now', id);
    await perform(page, withVariables(action, request.variables), call.deadline.remaining());
  } catch (error) {
    if (error instanceof ElementObscuredError) return notDone(action, `${action.method} on ${line}`, error);
    if (!isHealable(error)) throw error;
    // A closed page (its tab closed meanwhile) has nothing to read again: say that, and what was not done.
    if (page.isClosed()) {
      throw new PageClosedError(
        `The page closed while act(${JSON.stringify(request.instruction)}) was running: ${action.method} on ${line} was not done. Use another page (sdk.context.pages()).`,
        { cause: error },
      );
    }
    const reason = error.message;
    if (retry) {
      throw new ActionFailedError(
        `act(${JSON.stringify(request.instruction)}) failed twice. The second choice, ${action.method} on ${line}, failed: ${reason}. ${retry}`,
        action.selector,
      );
    }
    if (request.selfHeal === false) {
      throw new ActionFailedError(
        `act(${JSON.stringify(request.instruction)}): ${action.method} on ${line} failed: ${reason}. With selfHeal off, the page is not read again.`,
        action.selector,
      );
    }
    logger.info('act', 'The chosen element could not take the action; reading the page again', {
      element: line,
      method: action.method,
      reason,
    });
    // Without its id: the element is gone or changed, and an id does not move to its replacement,
    // so a model must pick from the new read, not repeat the id it chose.
    const what = line.replace(/^\[[\d-]+\] /, '');
    return actWithin(request, call, `An earlier attempt to ${action.method} ${what} failed: ${reason}. The page may have changed since.`);
  }
  // Stored with its %placeholders%: the variables' values never reach the cache.
  await request.cache?.set(snapshot.text, action);
  return {
    success: true,
    message: `${action.method} on ${line}${retry ? ' (after reading the page again)' : ''}`,
    actionDescription: action.description,
    actions: [action],
  };
}

/** The hosted server's cache: the action chosen before on this very page, performed again. */
async function replayCached(request: ActRequest, snapshotText: string, timeoutMs: number): Promise<ActResult | undefined> {
  const cached = await request.cache?.get(snapshotText);
  if (!isAction(cached)) return undefined;
  try {
    await perform(request.page, withVariables(cached, request.variables), timeoutMs);
  } catch (error) {
    if (error instanceof ElementObscuredError) return notDone(cached, `${cached.method} on ${cached.selector}`, error);
    if (!isHealable(error)) throw error;
    request.logger.info('act', 'The cached action no longer fits the page; asking the model', {
      selector: cached.selector,
      reason: error.message,
    });
    return undefined;
  }
  request.cache?.served?.();
  return {
    success: true,
    message: `${cached.method} on ${cached.selector} (from the cache)`,
    actionDescription: cached.description,
    actions: [cached],
  };
}

function isAction(value: unknown): value is ObserveResult {
  const action = value as ObserveResult;
  return typeof action?.selector === 'string' && typeof action.method === 'string' && Array.isArray(action.arguments);
}

/** What act() is given: an instruction for the model, or an action to replay (observe()'s). */
export type ActInput = { instruction: string } | { action: ActionInput };

/**
 * act() on one page, wherever it runs (the Sdk, the hosted server): an instruction goes to the
 * model; an action is replayed without one, and when its element cannot take it, the model (if
 * there is one, and the action says what it was for) is asked once with that description.
 */
export function performAct(
  page: Page,
  what: ActInput,
  options: Omit<ActRequest, 'page' | 'instruction' | 'model' | 'timeoutMs'> & {
    model: ActRequest['model'] | undefined;
    timeoutMs: number;
    modelTimeoutMs: number;
  },
): Promise<ActResult> {
  const { model, timeoutMs, modelTimeoutMs, ...rest } = options;
  const withModel = (instruction: string, spec: ActRequest['model']) =>
    runAct({ ...rest, page, instruction, model: spec, timeoutMs: modelTimeoutMs });
  if ('instruction' in what) {
    if (!model) throw new MissingLLMConfigurationError(`act(${JSON.stringify(what.instruction.slice(0, 60))}) needs a model.`);
    return withModel(what.instruction, model);
  }
  const { action } = what;
  const description = action.description?.trim();
  return replayAction(page, action, {
    timeoutMs,
    variables: options.variables,
    logger: options.logger,
    selfHeal: options.selfHeal,
    heal:
      model && description && options.selfHeal !== false
        ? () => withModel(`${action.method ?? 'click'}: ${description}`, model)
        : undefined,
  });
}

/**
 * act(observeResult): no model. If the element is gone and a model is configured, `heal` asks
 * it once with the action's description as the instruction.
 */
async function replayAction(
  page: Page,
  action: ActionInput,
  options: { timeoutMs: number; variables: Record<string, string>; logger: Logger; selfHeal?: boolean; heal?: () => Promise<ActResult> },
): Promise<ActResult> {
  checkAction(action);
  const performed: ObserveResult = {
    selector: action.selector,
    description: action.description ?? '',
    method: action.method ?? 'click',
    arguments: action.arguments ?? [],
  };
  try {
    await perform(page, withVariables(performed, options.variables), options.timeoutMs);
  } catch (error) {
    if (error instanceof ElementObscuredError) return notDone(performed, `${performed.method} on ${action.selector}`, error);
    // An id whose element is gone: the caller reads the page again (its message says so).
    if (!isHealable(error) || error instanceof ElementIdNotFoundError) throw error;
    if (!options.heal) {
      throw new ActionFailedError(
        `Could not ${action.method ?? 'click'} ${action.description ? `"${action.description}" ` : ''}(${action.selector}): ${error.message}. ` +
          (options.selfHeal === false
            ? 'With selfHeal off, the element is not looked for again.'
            : 'Configure a model so act() can look at the page again, or call observe() for fresh actions.'),
        action.selector,
      );
    }
    options.logger.info('act', 'The recorded element could not take the action; asking the model', {
      selector: action.selector,
      reason: error.message,
    });
    return options.heal();
  }
  return {
    success: true,
    message: `${performed.method} on ${action.selector}`,
    actionDescription: performed.description,
    actions: [performed],
  };
}

/**
 * A covered element: nothing was pressed, and the caller (not the model) decides what to do about
 * the cover. The action is returned so it can be replayed once the cover is gone.
 */
function notDone(action: ObserveResult, what: string, error: ElementObscuredError): ActResult {
  return { success: false, message: `Did not ${what}: ${error.message}.`, actionDescription: action.description, actions: [action] };
}

/** `%name%` → its value, in the arguments only; the model never sees the values. */
function withVariables<T extends { arguments?: string[] }>(action: T, variables: Record<string, string>): T & { arguments: string[] } {
  const args = (action.arguments ?? []).map((arg) =>
    arg.replace(/%([A-Za-z0-9_]+)%/g, (match, name: string) => (name in variables ? variables[name]! : match)),
  );
  return { ...action, arguments: args };
}
