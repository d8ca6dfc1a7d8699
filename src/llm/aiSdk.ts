// Loading the AI SDK. It is an optional peer: page text needs no model, and an install without it is
// half the size. In tendril/extension the extension's own bundler always includes it, so the build
// there replaces this module with a plain load (scripts/extension-bundle.mjs).
import { MissingLLMConfigurationError } from '../errors.js';

/** `load()`, or, when the package is not installed, an error that says what to install. */
export function importAiSdk<T>(name: string, load: () => Promise<T>): Promise<T> {
  return load().catch((error: unknown) => {
    throw /MODULE_NOT_FOUND/.test(String((error as { code?: unknown } | null)?.code ?? ''))
      ? new MissingLLMConfigurationError(`Model calls need the AI SDK (${name} is missing): \`npm install ai @ai-sdk/openai\`.`, {
          cause: error,
        })
      : error;
  });
}
