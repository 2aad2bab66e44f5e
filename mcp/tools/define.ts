/**
 * One way to declare an MCP tool: name, texts, zod input and output schemas, annotations, and a handler that gets
 * the parsed arguments and the authenticated caller and returns structured content plus a short text. Domain
 * errors become `isError` results with a snake_case code (see `tool_error.ts`).
 */
import type { McpServer, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Principal } from "../../auth/principal.ts";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../routes/env.ts";
import { principalOf } from "../context.ts";
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
  /** JSON Schemas the SDK derived from the zod schemas, kept after the first registration (see below). */
  json?: { input: unknown; output: unknown };
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
  const { spec, run, deps } = tool;
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
    (async (args: any, ctx: Parameters<typeof principalOf>[0]) => {
      try {
        const principal = principalOf(ctx);
        if (!principal) throw new AppError("not_found");
        const answer = await run(args, principal);
        return {
          structuredContent: answer.data as Record<string, unknown>,
          content: [{ type: "text" as const, text: answer.text }],
        };
      } catch (err) {
        return toolError(deps, err, spec.name);
      }
      // deno-lint-ignore no-explicit-any
    }) as any,
  );
  reuseJsonSchemas(server, registered, tool);
}

/** The SDK internals that memoise a tool's JSON Schemas, per server instance. */
interface SchemaMemo {
  toolInputSchemaJson?: (name: string) => unknown;
  _toolInputSchemaJson?: Record<string, unknown>;
}

/**
 * The SDK converts a tool's zod schemas to JSON Schema on each new server instance (for `tools/list` and for
 * every `tools/call` result), and our servers are built per request. The conversion of one tool is the same every
 * time, so it is done once and handed to later instances through the SDK's own memo fields (SDK 2.4; when those
 * fields are absent the SDK simply converts again).
 */
function reuseJsonSchemas(
  server: McpServer,
  registered: { outputSchemaJson?: unknown },
  tool: DeclaredTool,
): void {
  const memo = server as unknown as SchemaMemo;
  if (typeof memo.toolInputSchemaJson !== "function" || !memo._toolInputSchemaJson) return;
  if (tool.json) {
    memo._toolInputSchemaJson[tool.spec.name] = tool.json.input;
    registered.outputSchemaJson = tool.json.output;
    return;
  }
  tool.json = { input: memo.toolInputSchemaJson(tool.spec.name), output: registered.outputSchemaJson };
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
