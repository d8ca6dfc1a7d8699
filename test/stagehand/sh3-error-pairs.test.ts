// One error tree: every error class the main entry exports descends from SdkError, and each of
// Stagehand's names for a Tendril error is that class under another constructor (one prototype), so
// `instanceof` holds both ways with nothing but the prototype chain: no Symbol.hasInstance, no
// message read. The table below is the whole list of pairs; a pair added or lost fails here.

import { describe, expect, it } from 'vitest';
import * as errors from '../../src/errors.js';
import * as entry from '../../src/index.js';
import { languageModel } from '../../src/llm/providers.js';

type AnyClass = abstract new (...args: never[]) => Error;

const isErrorClass = (value: unknown): value is AnyClass =>
  typeof value === 'function' && (value === Error || (value as AnyClass).prototype instanceof Error);

/** The exported error classes, by their exported names. */
const exported = (Object.entries(entry) as Array<[string, unknown]>).filter((pair): pair is [string, AnyClass] => isErrorClass(pair[1]));
const tendril = new Map(
  (Object.entries(errors) as Array<[string, unknown]>).filter((pair): pair is [string, AnyClass] => isErrorClass(pair[1])),
);

/** Each Stagehand name of a Tendril class: the Tendril class, and a `new` with Stagehand's arguments. */
const PAIRS: Record<string, [string, () => Error]> = {
  StagehandError: ['SdkError', () => new entry.StagehandError('something failed')],
  StagehandNotInitializedError: ['SdkStateError', () => new entry.StagehandNotInitializedError('context')],
  StagehandClosedError: ['SdkClosedError', () => new entry.StagehandClosedError()],
  StagehandInvalidArgumentError: ['InvalidOptionError', () => new entry.StagehandInvalidArgumentError('bad option')],
  UnsupportedAISDKModelProviderError: [
    'UnsupportedProviderError',
    () => new entry.UnsupportedAISDKModelProviderError('acme', ['openai', 'anthropic']),
  ],
  StagehandElementNotFoundError: ['ElementNotFoundError', () => new entry.StagehandElementNotFoundError(['//button[9]'])],
  CreateChatCompletionResponseError: ['LLMResponseError', () => new entry.CreateChatCompletionResponseError('no choices')],
  StagehandEvalError: ['SdkEvalError', () => new entry.StagehandEvalError('threw')],
  StagehandDomProcessError: ['SdkDomProcessError', () => new entry.StagehandDomProcessError('walk failed')],
  StagehandIframeError: ['SdkIframeError', () => new entry.StagehandIframeError('http://a.test/frame', 'no session')],
  ZodSchemaValidationError: ['SchemaValidationError', () => new entry.ZodSchemaValidationError({ price: 'x' }, [{ path: ['price'] }])],
  StagehandInitError: ['BrowserLaunchError', () => new entry.StagehandInitError('no Chrome')],
  StagehandShadowRootMissingError: ['SdkShadowRootMissingError', () => new entry.StagehandShadowRootMissingError('div#host')],
  ConnectionTimeoutError: ['BrowserConnectError', () => new entry.ConnectionTimeoutError('ws://127.0.0.1:9/')],
  CdpConnectionClosedError: ['ConnectionClosedError', () => new entry.CdpConnectionClosedError('socket closed')],
  StagehandAPIError: ['HostedServiceError', () => new entry.StagehandAPIError('refused', 400, 'bad_request')],
};

/** A Tendril instance of the class, made as Tendril makes it. */
function tendrilInstance(name: string): Error {
  const type = tendril.get(name) as unknown as new (...args: unknown[]) => Error;
  if (name === 'ElementNotFoundError') return new type('no such button', '#buy');
  if (name === 'HostedServiceError') return new type('refused', 429, 'rate_limited');
  return new type(`a ${name}`);
}

describe('one error tree', () => {
  it('every exported error class is an SdkError, and none answers instanceof by a method of its own', () => {
    expect(exported.length).toBeGreaterThan(80);
    for (const [name, type] of exported) {
      expect(type.prototype === errors.SdkError.prototype || type.prototype instanceof errors.SdkError, name).toBe(true);
      expect(Object.hasOwn(type, Symbol.hasInstance), name).toBe(false);
    }
  });

  it("the Stagehand names that share a Tendril class's prototype are exactly the listed pairs", () => {
    const byPrototype = new Map([...tendril].map(([name, type]) => [type.prototype, name]));
    const found = Object.fromEntries(
      exported
        .filter(([name, type]) => !tendril.has(name) && byPrototype.has(type.prototype))
        .map(([name, type]) => [name, byPrototype.get(type.prototype)]),
    );
    expect(found).toEqual(Object.fromEntries(Object.entries(PAIRS).map(([name, [base]]) => [name, base])));
  });

  it.each(Object.entries(PAIRS))(
    "%s and Tendril's class are instances of each other, with Stagehand's name and arguments",
    (name, [base, make]) => {
      const stagehandType = (entry as unknown as Record<string, AnyClass>)[name]!;
      const tendrilType = tendril.get(base)!;
      const made = make();
      expect(made.name).toBe(name);
      expect(made).toBeInstanceOf(tendrilType);
      expect(made).toBeInstanceOf(stagehandType);
      expect(made).toBeInstanceOf(entry.StagehandError);
      const thrown = tendrilInstance(base);
      expect(thrown).toBeInstanceOf(stagehandType);
      expect(thrown.name).toBe(base);
      // A sibling of the same parent is not one of them.
      expect(new errors.PageClosedError('closed')).not.toBeInstanceOf(
        name === 'StagehandError' ? errors.ElementNotFoundError : stagehandType,
      );
      expect(new Error('plain')).not.toBeInstanceOf(stagehandType);
    },
  );

  it("keeps the fields of Stagehand's constructors, and subclasses of a Stagehand name work", () => {
    const zod = new entry.ZodSchemaValidationError({ price: 'x' }, [{ path: ['price'] }]);
    expect(zod).toMatchObject({ received: { price: 'x' }, issues: [{ path: ['price'] }] });
    expect(new entry.StagehandElementNotFoundError(['//a', '//b']).selector).toBe('//a,//b');
    expect(new entry.StagehandAPIUnauthorizedError()).toMatchObject({ status: 401, code: 'unauthorized' });
    class MyError extends entry.StagehandError {}
    const mine = new MyError('mine');
    expect(mine).toBeInstanceOf(errors.SdkError);
    expect(mine.name).toBe('MyError');
    expect(new entry.StagehandHttpError('teapot', 418)).toBeInstanceOf(errors.HostedServiceError);
    expect(new entry.StagehandHttpError('teapot', 418)).not.toBeInstanceOf(entry.StagehandServerError);
    expect(() => (entry.StagehandError as unknown as (m: string) => Error)('called')).toThrow(TypeError);
  });

  it('Tendril throws the specific classes the pairs stand for: an unknown provider', async () => {
    const unknown = await languageModel({ provider: 'acme', modelId: 'brain-1' } as never).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(entry.UnsupportedAISDKModelProviderError);
    expect(unknown).toBeInstanceOf(errors.UnsupportedModelError);
    // The hosted service's errors by status are Stagehand's own classes, below Tendril's one class.
    const refused = new errors.HostedServiceError('bad key', 401, 'unauthorized');
    expect(refused).toBeInstanceOf(entry.StagehandAPIError);
    expect(refused).not.toBeInstanceOf(entry.StagehandAPIUnauthorizedError);
    expect(new entry.StagehandServerError('down')).toBeInstanceOf(errors.HostedServiceError);
  });
});
