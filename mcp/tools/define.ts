/**
 * One way to declare an MCP tool: name, texts, zod input and output schemas, annotations, and a handler that gets
 * the parsed arguments and the authenticated caller and returns structured content plus a short text. Domain
 * errors become `isError` results with a snake_case code (see `tool_error.ts`).
 */
import type { CallToolResult, McpServer, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Principal } from "../../auth/principal.ts";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../deps.ts";
import { nulPath } from "../../text.ts";
import { principalOf, requestIdOf } from "../context.ts";
import { toolError } from "./tool_error.ts";

/** What a tool declares about itself. */
export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  /** What the tool does, when to use it and what it returns (German and English). */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
}

/** What a handler returns: the structured content (matching the output schema) and a short text rendering. */
export interface ToolAnswer<O> {
  data: O;
  text: string;
}

/** A tool declared once per process: its spec and its handler, registered on every per-request server. */
export interface DeclaredTool {
  // deno-lint-ignore no-explicit-any
  spec: ToolSpec<any, any>;
  // deno-lint-ignore no-explicit-any
  run: (args: any, principal: Principal) => Promise<ToolAnswer<unknown>>;
  deps: AppDeps;
  /** The SDK's record of the tool from its first registration, shared by later servers (see below). */
  shared?: { registered: object; inputJson: unknown };
}

/**
 * The tools of one server, declared once: zod schemas and descriptions are built when the set is made, not on
 * every request (the servers are stateless and built per request; building 14 tools' schemas each time cost
 * more than the tool call itself).
 */
export class ToolSet {
  /** The declared tools in registration order. */
  readonly tools: DeclaredTool[] = [];
}

/** Where register functions put their tools: a {@linkcode ToolSet} (declared once) or a server directly. */
export type ToolTarget = ToolSet | McpServer;

/** Declares `spec` with handler `run` on `target`; `run` gets the parsed arguments and the caller. */
export function addTool<I extends z.ZodObject, O extends z.ZodObject>(
  target: ToolTarget,
  deps: AppDeps,
  spec: ToolSpec<I, O>,
  run: (args: z.infer<I>, principal: Principal) => Promise<ToolAnswer<z.infer<O>>>,
): void {
  const tool: DeclaredTool = { spec, run, deps };
  if (target instanceof ToolSet) target.tools.push(tool);
  else registerDeclared(target, tool);
}

/** Registers a declared tool on `server`; domain errors become `isError` results with their code. */
export function registerDeclared(server: McpServer, tool: DeclaredTool): void {
  if (adoptShared(server, tool)) return;
  const { spec } = tool;
  const callback = (args: unknown, ctx: Parameters<typeof principalOf>[0]) =>
    callDeclared(tool, args, principalOf(ctx), requestIdOf(ctx));
  const registered = server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: spec.annotations,
    },
    // deno-lint-ignore no-explicit-any
    callback as any,
  );
  share(server, registered, tool);
}

/**
 * Runs a declared tool with arguments that passed its input schema, for `principal` (none: `not_found`), and
 * shapes the answer as a tool result: structured content plus its text, or an `isError` result with the code of a
 * domain error (`invalid_arguments` for text holding a NUL character, which no column can store). Never throws;
 * an unexpected error is logged with `requestId`.
 */
export async function callDeclared(
  tool: DeclaredTool,
  args: unknown,
  principal: Principal | undefined,
  requestId?: string,
): Promise<CallToolResult> {
  try {
    if (!principal) throw new AppError("not_found");
    const nul = nulPath(args);
    if (nul) throw new AppError("invalid_arguments", `${nul}: contains a NUL character`);
    const answer = await tool.run(args, principal);
    return {
      structuredContent: answer.data as Record<string, unknown>,
      content: [{ type: "text" as const, text: answer.text }],
    };
  } catch (err) {
    return toolError(tool.deps, err, tool.spec.name, requestId);
  }
}

/** The SDK internals (McpServer of SDK 2.4) through which a registration is shared between servers. */
interface ToolRegistry {
  _registeredTools?: Record<string, object>;
  _toolInputSchemaJson?: Record<string, unknown>;
  setToolRequestHandlers?: () => void;
  toolInputSchemaJson?: (name: string) => unknown;
}

/**
 * Our servers are built per request. `registerTool` makes a new record per server (closures, a fresh JSON Schema
 * conversion of the zod schemas for `tools/list` and every `tools/call` result), which cost ~50 µs per tool and
 * request, mostly garbage collection. The record depends only on the declaration, so the first one is kept and
 * later servers take it over through the SDK's own registry fields (the tools/list and tools/call handlers read
 * only from there). Its update/remove closures still point at the first server: we never call them. When the
 * fields are absent (another SDK version) every server simply registers the tool itself.
 */
function share(server: McpServer, registered: { outputSchemaJson?: unknown }, tool: DeclaredTool): void {
  const registry = server as unknown as ToolRegistry;
  if (typeof registry.toolInputSchemaJson !== "function" || !registry._toolInputSchemaJson) return;
  void registered.outputSchemaJson; // converted once here; the getter memoises it on the shared record
  tool.shared = { registered, inputJson: registry.toolInputSchemaJson(tool.spec.name) };
}

function adoptShared(server: McpServer, tool: DeclaredTool): boolean {
  const registry = server as unknown as ToolRegistry;
  const { _registeredTools: tools, _toolInputSchemaJson: inputJson } = registry;
  if (!tool.shared || !tools || !inputJson || typeof registry.setToolRequestHandlers !== "function") {
    return false;
  }
  const name = tool.spec.name;
  if (Object.hasOwn(tools, name)) throw new Error(`Tool ${name} is already registered`);
  tools[name] = tool.shared.registered;
  inputJson[name] = tool.shared.inputJson;
  registry.setToolRequestHandlers();
  return true;
}

/** Annotations of a tool that only reads. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Annotations of a tool that adds something and is not idempotent (e.g. sends a message). */
export const ADDS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** Annotations of a tool that changes something in place; calling it twice has the same effect as once. */
export const UPDATES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Annotations of a tool that removes, cancels or withdraws something (idempotent). */
export const DESTROYS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
