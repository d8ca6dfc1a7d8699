// One table of error classes and wire names (src/wireErrors.ts): every error class the library
// exports leaves the server and comes back to the client as itself, fields included.

import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../../protocol/index.js';
import * as errors from '../../src/errors.js';
import { codeOf, fromWire, toWire } from '../../src/wireErrors.js';

type AnyClass = new (...args: never[]) => errors.SdkError;

/** Errors whose constructors take more than a message, made with every field set. */
const SAMPLES: Record<string, () => errors.SdkError> = {
  SchemaValidationError: () =>
    new errors.SchemaValidationError('the price is not a number', [{ path: ['price'], message: 'Expected number' }]),
  ElementNotFoundError: () => new errors.ElementNotFoundError('no such button', '#buy'),
  XPathResolutionError: () => new errors.XPathResolutionError('no such node', '//main/button[9]'),
  SelectorSyntaxError: () => new errors.SelectorSyntaxError('unbalanced bracket', 'div[('),
  TimeoutError: () => new errors.TimeoutError('too slow', 1234),
  ProtocolError: () => new errors.ProtocolError('Chrome said no', 'DOM.describeNode', -32000),
  NavigationError: () => new errors.NavigationError('net::ERR_NAME_NOT_RESOLVED', 'https://nowhere.invalid/'),
  PageStatusError: () => new errors.PageStatusError('the server answered 404', 'https://example.org/gone', 404),
  UrlNotAllowedError: () => new errors.UrlNotAllowedError('file: is not of the web', 'file:///etc/passwd'),
  DomainPolicyError: () =>
    new errors.DomainPolicyError('blocked', 'https://ads.example/x', 'ads.example', { allow: ['example.org'], block: ['ads.example'] }),
  UnknownKeyError: () => new errors.UnknownKeyError('Unknown key "Hyper"', 'Hyper'),
  ActionFailedError: () => new errors.ActionFailedError('the click did not land', 'xpath=/html/body/button'),
  BudgetExceededError: () =>
    Object.assign(new errors.BudgetExceededError('over budget'), { limit: 5000, used: 4200, needed: 1300, scope: 'account' }),
};

const classes = (Object.entries(errors) as Array<[string, unknown]>).filter(
  (entry): entry is [string, AnyClass] =>
    typeof entry[1] === 'function' && (entry[1] === errors.SdkError || (entry[1] as AnyClass).prototype instanceof errors.SdkError),
);

function sample(name: string, type: AnyClass): errors.SdkError {
  return SAMPLES[name]?.() ?? new (type as unknown as new (message: string) => errors.SdkError)(`a ${name} happened`);
}

describe('the error wire table', () => {
  it('knows every exported error class', () => {
    expect(classes.length).toBeGreaterThan(25);
  });

  // Raised by the client only, never sent by a server: the hosted service's own failure, and a
  // trace that could not be written, which holds the whole zip for the caller to save elsewhere.
  const clientOnly = ['HostedServiceError', 'TracingWriteError'];
  it.each(classes.filter(([name]) => !clientOnly.includes(name)))('%s round-trips: same class, message, name and fields', (name, type) => {
    const error = sample(name, type);
    // Through JSON and the protocol's own schema, as it travels.
    const wire = ErrorBody.parse({ error: JSON.parse(JSON.stringify(toWire(error))) }).error;
    expect(wire.name).toBe(name);
    const back = fromWire(wire);
    expect(back).toBeInstanceOf(type);
    expect(back!.constructor).toBe(type);
    expect(back!.name).toBe(error.name);
    expect(back!.message).toBe(error.message);
    expect({ ...back }).toEqual({ ...error });
  });

  it('sends a HostedServiceError under its own code, which the client turns into one from the HTTP status', () => {
    const error = new errors.HostedServiceError('at the session limit', 429, 'rate_limited', 5);
    expect(codeOf(error)).toEqual({ code: 'rate_limited' });
    expect(fromWire(toWire(error))).toBeUndefined();
  });

  it('sends a subclass of its own under the nearest class it knows, and keeps the prototype of what it decodes', () => {
    class CustomTimeout extends errors.TimeoutError {}
    const wire = toWire(new CustomTimeout('slow', 50));
    expect(wire).toMatchObject({ code: 'timeout', name: 'TimeoutError' });
    const hostile = fromWire({ ...wire, fields: JSON.parse('{"__proto__": {"polluted": true}, "message": "changed", "timeoutMs": 7}') });
    expect(hostile).toBeInstanceOf(errors.TimeoutError);
    expect(hostile!.message).toBe('slow');
    expect((hostile as errors.TimeoutError).timeoutMs).toBe(7);
    expect((hostile as unknown as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
