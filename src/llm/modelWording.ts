// How each entry point names the model's settings in its errors. The rule of what a model needs
// is one (providers.ts, modelSettingsError); what the user must change is said in the words of
// what they ran: the library's options, the command line's flags and variables, a server's
// variables and headers.

/** The words for one entry point's model settings. */
export interface ModelWording {
  /** How to give the key of `name` ("<provider>/<model>"), read from `variables` when not given. */
  key(name: string, variables: string[]): string;
  /** How to give a server's address. */
  address: string;
  /** A model served by a server of one's own that speaks OpenAI's API, which is asked for no key. */
  ownServer: string;
}

/** The library's options: `model: { modelName, apiKey, baseURL }`. */
export const OPTIONS_WORDING: ModelWording = {
  key: (name, variables) => `pass model: { modelName: "${name}", apiKey } or set ${variables.join(' or ')}`,
  address: 'model: { modelName, baseURL: "http://host:port/v1" }',
  ownServer: 'model: { modelName: "openai-compatible/<name>", baseURL: "http://127.0.0.1:11434/v1" }',
};

/** The command line (`tendril extract`, `mcp`, `worker`): flags, and the variables they default to. */
export const COMMAND_LINE_WORDING: ModelWording = {
  key: (_name, variables) => `set MODEL_API_KEY (or ${variables.join(' or ')})`,
  address: '--base-url http://host:port/v1 (or MODEL_BASE_URL)',
  ownServer: '--model openai-compatible/<name> --base-url http://127.0.0.1:11434/v1 (or MODEL_NAME and MODEL_BASE_URL)',
};

/** A program configured by environment variables only, such as the reference function. */
export const ENVIRONMENT_WORDING: ModelWording = {
  key: (_name, variables) => `set MODEL_API_KEY (or ${variables.join(' or ')})`,
  address: 'MODEL_BASE_URL=http://host:port/v1',
  ownServer: 'MODEL_NAME=openai-compatible/<name> MODEL_BASE_URL=http://127.0.0.1:11434/v1',
};
