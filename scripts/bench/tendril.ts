// Tendril, straight from the sources in src/.
import { z } from 'zod';
import { Sdk, type ExtractSchema } from '../../src/index.js';
import type { BenchSession, LibraryAdapter, SchemaBuilder, SessionOptions } from './adapter.js';
import { clientOptions, type LaunchSpec } from './config.js';

export function loadTendril(): LibraryAdapter {
  // Built once per builder, so timed calls never include building a schema.
  const schemas = new WeakMap<SchemaBuilder, ExtractSchema>();
  const schemaFor = (build: SchemaBuilder): ExtractSchema => {
    let schema = schemas.get(build);
    if (!schema) schemas.set(build, (schema = build(z) as ExtractSchema));
    return schema;
  };
  return {
    id: 'tendril',
    label: 'Tendril',
    newSession(launch: LaunchSpec, options: SessionOptions = {}): BenchSession {
      const sdk = new Sdk(clientOptions(launch, options.model));
      const firstPage = () => {
        const page = sdk.context.pages()[0];
        if (!page) throw new Error('Tendril has no page after init()');
        return page;
      };
      return {
        init: () => sdk.init(),
        goto: (url) => firstPage().goto(url), // waits for load by default
        extractText: async () => (await sdk.extract()).pageText,
        extractWithSchema: (instruction, build) => sdk.extract(instruction, schemaFor(build)),
        act: (action) => sdk.act({ ...action, arguments: [...action.arguments] }),
        evaluate: (expression) => firstPage().evaluate<unknown>(expression),
        close: () => sdk.close(),
      };
    },
  };
}
