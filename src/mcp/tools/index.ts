// The tools an MCP client sees. Their names, descriptions and schemas are read by models, so they
// say what each tool is for and when to prefer another. Results are short text by default: an
// agent pays for every byte it is sent, so page text comes only when asked for.

import {
  fromJsonSchema,
  type CallToolResult,
  type JsonSchemaType,
  type McpServer,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { ConnectionClosedError, MissingLLMConfigurationError, TimeoutError } from '../../errors.js';
import { parseModelConfiguration } from '../../llm/config.js';
import { COMMAND_LINE_WORDING } from '../../llm/modelWording.js';
import { modelSettingsError } from '../../llm/providers.js';
import { Sdk } from '../../sdk.js';
import type { ModelConfiguration } from '../../types.js';
import { clientSampling, samplingModelConfiguration, serverHasModel } from '../sampling.js';
import type { Sample } from '../rounds.js';
import { CHUNKS_PER_ROUND, declaresSampling, isModernRequest, SamplingRounds } from '../rounds.js';
import type { Caller, ClientContexts } from '../contexts.js';
import type { SdkOptions } from '../../types.js';
import { ACTING_TOOLS } from './acting.js';
import { CONTEXT_ARGUMENT, contextTool, runContextTool } from './contexts.js';
import { failure, type Tool, type ToolCall } from './kit.js';
import { MODEL_TOOLS } from './model.js';
import { READING_TOOLS } from './reading.js';
import { STEP_TOOLS } from './steps.js';
import { TRACING_TOOLS } from './tracing.js';

/** What the server's tools are given besides the browser. */
export interface ToolSettings {
  /** The deadline of a tool call that asks a model, the client's sampling requests included. */
  modelTimeoutMs: number;
  /** A line for the server's log (stderr). */
  log: (line: string) => void;
  /** Where `upload` may take files from; undefined: upload is off. */
  uploadDir?: string;
  /** Where stop_tracing writes (--trace-dir). */
  traceDir?: string;
}

const TOOLS: Tool[] = [...READING_TOOLS, ...ACTING_TOOLS, ...STEP_TOOLS, ...MODEL_TOOLS, ...TRACING_TOOLS];

export const TOOL_NAMES = [...TOOLS.map((tool) => tool.name), 'context'];

type Schema = StandardSchemaWithJSON<Record<string, unknown>>;

/**
 * The tools' schemas, compiled once per server: over HTTP the SDK asks for a new protocol instance,
 * and so registers the tools again, on every request. Without --shared each page tool takes a
 * `context` handle too.
 */
const compiled = new Map<boolean, Map<string, Schema>>();

function schemasFor(shared: boolean, idleMs: number): Map<string, Schema> {
  let schemas = compiled.get(shared);
  if (schemas) return schemas;
  const compile = (schema: Record<string, unknown>) =>
    fromJsonSchema<Record<string, unknown>>({ ...schema, additionalProperties: false } as JsonSchemaType);
  schemas = new Map(
    TOOLS.map((tool) => {
      const properties = { ...(tool.inputSchema.properties as object), ...(shared ? {} : { context: CONTEXT_ARGUMENT }) };
      return [tool.name, compile({ ...tool.inputSchema, properties })];
    }),
  );
  schemas.set('context', compile(contextTool(idleMs).inputSchema));
  compiled.set(shared, schemas);
  return schemas;
}

/** Who calls: over HTTP, the principal the server authenticated (http.ts); over stdio, the process's one client. */
function callerOf(ctx: ServerContext): Caller {
  return { principal: ctx.http?.authInfo?.clientId ?? 'stdio', mcpSession: ctx.sessionId };
}

export function registerTools(server: McpServer, contexts: ClientContexts, settings: ToolSettings): void {
  const { shared, idleMs } = contexts.settings;
  const schemas = schemasFor(shared, idleMs);
  if (!shared) {
    const tool = contextTool(idleMs);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: schemas.get(tool.name)!,
        annotations: { title: tool.title, readOnlyHint: false, openWorldHint: false },
      },
      (args, ctx) => runContextTool(args ?? {}, contexts, callerOf(ctx)).catch((error: unknown) => errorResult(error, false)),
    );
  }
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: schemas.get(tool.name)!,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: true },
      },
      async (args, ctx) => {
        // On revision 2026-07-28 the client's model is asked in rounds, the call running again in each.
        const rounds = isModernRequest(ctx) && declaresSampling(ctx) ? await SamplingRounds.start(ctx, tool.name, args) : undefined;
        if (rounds && !(rounds instanceof SamplingRounds)) return rounds;
        let entered: ReturnType<ClientContexts['enter']>;
        try {
          entered = contexts.enter(typeof args?.context === 'string' ? args.context : undefined, callerOf(ctx));
        } catch (error) {
          return errorResult(error, false);
        }
        const { session } = entered;
        const call: ToolCall = {
          askedModel: false,
          uploadDir: settings.uploadDir,
          traceDir: settings.traceDir,
          modelOptions: () => {
            call.askedModel = true;
            return modelOptions(
              session.options,
              settings,
              rounds ? { sample: rounds.sample, parallel: CHUNKS_PER_ROUND } : { sample: clientSampling(server, ctx) },
            );
          },
        };
        try {
          return await tool.run(args ?? {}, session, call);
        } catch (error) {
          const more = await rounds?.inputRequired(error);
          if (more) return more;
          if (error instanceof ConnectionClosedError) await session.forget();
          return errorResult(error, call.askedModel);
        } finally {
          entered.leave();
        }
      },
    );
  }
}

let announced = false;

/**
 * The server's own model when it has one; else the client's, through sampling, when the client
 * offers it; else the server's settings still, whose call then fails naming what is missing.
 */
async function modelOptions(
  options: SdkOptions,
  settings: ToolSettings,
  { sample, parallel }: { sample: Sample | undefined; parallel?: number },
): Promise<{ model?: ModelConfiguration; timeout: number }> {
  const timeout = settings.modelTimeoutMs;
  if (!sample) {
    // Said now in the words of the command that started the server, not the library's options.
    const spec = Sdk.environment(options).modelsOnService ? undefined : parseModelConfiguration(options.model);
    const missing = spec && modelSettingsError(spec, COMMAND_LINE_WORDING);
    if (missing) throw missing;
    return { timeout };
  }
  if (await serverHasModel(options)) return { timeout };
  if (!announced) {
    announced = true;
    settings.log("the server has no model of its own (no key for it): extract, act and observe ask the client's model, through sampling");
  }
  return { model: samplingModelConfiguration(sample, timeout, parallel), timeout };
}

/** A tool error carries the typed error's name and message: the model can tell what to change. */
function errorResult(error: unknown, askedModel: boolean): CallToolResult {
  if (!(error instanceof Error)) return failure('Error', String(error));
  const hint =
    error instanceof MissingLLMConfigurationError
      ? ' Or use the server from an MCP client that offers sampling (the `sampling` capability), whose own model is then asked.'
      : error instanceof ConnectionClosedError
        ? ' The next call starts a new browser.'
        : error instanceof TimeoutError && askedModel
          ? ' For the MCP server: --model-timeout MS sets the deadline of a tool call that asks a model.'
          : '';
  return failure(error.name, error.message + hint);
}
