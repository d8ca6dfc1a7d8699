// What the MCP tests share: calling a tool through a real client, reading its text, and finding in
// a sampling prompt what a model reading it would find.
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { CHROME, TEST_ARGS } from '../helpers.js';

/** What a `tendril mcp` child needs to launch the test Chromium; model settings come on top when wanted. */
export const browserEnv = () => ({ CHROME_PATH: CHROME, CHROME_ARGS: TEST_ARGS.join(' ') });

export interface Result {
  isError?: boolean;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

export const textOf = (result: Result): string => result.content.map((part) => part.text ?? '').join('\n');

/** A text result that is not an error, as its text. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(client, name, args);
  expect({ name, isError: result.isError ?? false, text: result.isError ? textOf(result) : '' }).toEqual({
    name,
    isError: false,
    text: '',
  });
  return textOf(result);
}

/** The name on the first line of the prompt's page text with this role, as a model reading it would find it. */
export function nameOf(request: { user: string }, role: string, near?: RegExp): string {
  const lines = request.user
    .split('\n')
    .filter((line) => new RegExp(`^\\s*(\\[(?:\\d+-)?\\d+\\] )?${role}: `).test(line) && (!near || near.test(line)));
  if (!lines[0]) throw new Error(`no ${role} in the prompt:\n${request.user}`);
  // Attributes such as `[level=1]` follow the name.
  return lines[0]
    .replace(/^\s*(\[(?:\d+-)?\d+\] )?[a-z]+: /, '')
    .replace(/(\s*\[[^\]]*\])+\s*$/, '')
    .trim();
}

/** The id of the line `role: name` in the prompt. */
export function idOf(request: { user: string }, role: string, name: string): string {
  const match = new RegExp(`\\[((?:\\d+-)?\\d+)\\] ${role}: ${name}`).exec(request.user);
  if (!match) throw new Error(`no ${role} "${name}" in the prompt:\n${request.user}`);
  return match[1]!;
}
