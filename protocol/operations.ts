// extract / act / observe / navigate on a session, run by the server with the client's options.
// Schemas travel as JSON Schema; the client validates the result again with its own zod schema.

// A namespace import: bundlers can then leave out the parts of zod never used (its locales above all).
import * as z from 'zod/v4';

/** A model as the client configured it, minus the key (that travels in a header). */
export const WireModel = z.union([
  z.string().min(3),
  z
    .looseObject({ modelName: z.string().min(1), baseURL: z.string().optional() })
    .refine((model) => !('apiKey' in model), { message: 'send the model key in the x-model-api-key header, not in the body' }),
]);

const Common = {
  model: WireModel.optional(),
  /** Deadline of the operation on the server, in ms. */
  timeout: z.int().positive().optional(),
  /** The session page to work on: its target id; default the active page. */
  pageId: z.string().optional(),
};

export const ExtractRequest = z.object({
  ...Common,
  instruction: z.string().min(1).optional(),
  /** JSON Schema of the expected value (object, array, string, number, boolean, enum, anyOf; `format: "uri"` for links). */
  schema: z.record(z.string(), z.unknown()).optional(),
  selector: z.string().min(1).optional(),
});
export type ExtractRequest = z.infer<typeof ExtractRequest>;

export const Action = z.object({
  selector: z.string().min(1),
  description: z.string().optional(),
  method: z.string().optional(),
  arguments: z.array(z.string()).optional(),
});

export const ActRequest = z.object({
  ...Common,
  instruction: z.string().min(1).optional(),
  action: Action.optional(),
  /** Values for %name% placeholders; applied on the server, never sent to the model. */
  variables: z.record(z.string(), z.string()).optional(),
});
export type ActRequest = z.infer<typeof ActRequest>;

export const ObserveRequest = z.object({
  ...Common,
  instruction: z.string().min(1).optional(),
  selector: z.string().min(1).optional(),
});
export type ObserveRequest = z.infer<typeof ObserveRequest>;

export const NavigateRequest = z.object({
  url: z.string().min(1),
  waitUntil: z.enum(['commit', 'domcontentloaded', 'load', 'networkidle']).optional(),
  timeoutMs: z.int().positive().optional(),
  pageId: z.string().optional(),
});
export type NavigateRequest = z.infer<typeof NavigateRequest>;

export const ObserveResultWire = Action.required({ description: true, method: true, arguments: true });

export const ActResultWire = z.object({
  success: z.boolean(),
  message: z.string(),
  actionDescription: z.string(),
  actions: z.array(ObserveResultWire),
});

/** The `data` of each operation's result event. */
export const RESULTS = {
  extract: z.unknown(),
  act: ActResultWire,
  observe: z.array(ObserveResultWire),
  navigate: z.object({ url: z.string() }),
} as const;

export const OPERATIONS = {
  extract: ExtractRequest,
  act: ActRequest,
  observe: ObserveRequest,
  navigate: NavigateRequest,
} as const;
export type OperationName = keyof typeof OPERATIONS;
