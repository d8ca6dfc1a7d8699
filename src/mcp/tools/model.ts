// The tool that asks a model to read data out of a page.

import type { ExtractOptions } from '../../types.js';
import { schemaFromJson } from '../../extract/jsonSchemaInput.js';
import { optionalString, SELECTOR_HELP, text, type Tool } from './kit.js';

export const MODEL_TOOLS: Tool[] = [
  {
    name: 'extract',
    title: 'Extract data with a model',
    description:
      'Ask a model to pull data out of the current tab: an instruction, and optionally a JSON Schema the answer must fit. Returns JSON ' +
      '(`{"extraction": "…"}` without a schema). Links in fields with "format": "uri" are the page\'s real URLs. Use page_text instead to just read.',
    inputSchema: {
      type: 'object',
      properties: {
        instruction: { type: 'string', description: 'What to extract, e.g. "the name and price of every product".' },
        schema: {
          type: 'object',
          description: 'A JSON Schema of the result: object, array, string, number, integer, boolean, enum, anyOf.',
        },
        selector: { type: 'string', description: `Extract from this element only: ${SELECTOR_HELP}.` },
      },
      required: ['instruction'],
    },
    readOnly: true,
    async run(args, session, call) {
      const sdk = await session.sdk();
      const page = await session.page();
      const options: ExtractOptions = { page, selector: optionalString(args.selector), ...(await call.modelOptions()) };
      const instruction = String(args.instruction);
      const result: unknown =
        args.schema === undefined
          ? await sdk.extract(instruction, options)
          : await sdk.extract(instruction, schemaFromJson(args.schema), options);
      // The hosted cache's verdict is about the run, not the data.
      if (result && typeof result === 'object' && !Array.isArray(result) && 'cacheStatus' in result)
        delete (result as { cacheStatus?: unknown }).cacheStatus;
      return text(JSON.stringify(result, null, 2));
    },
  },
];
