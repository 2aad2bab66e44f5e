/**
 * One way to declare an MCP tool: name, texts, zod input and output schemas, annotations, and a handler that gets
 * the parsed arguments and the authenticated caller and returns structured content plus a short text. Domain
 * errors become `isError` results with a snake_case code (see `tool_error.ts`).
 *
 * Tools are declared once per process ({@linkcode ToolSet}); their `tools/list` entries are built once, through
 * the schemas' Standard JSON Schema converters as the SDK converts them, and {@linkcode answerToolCall} is the
 * one way a call is answered (the servers' `tools/call` handler and the direct path both use it).
 */
import type {
  CallToolResult,
  StandardSchemaWithJSON,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Principal } from "../../auth/principal.ts";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../deps.ts";
import { nulPath, truncate } from "../../text.ts";
import { codedError, toolError } from "./tool_error.ts";

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

/** A tool declared once per process: its spec and its handler, served by every per-request server. */
export interface DeclaredTool {
  // deno-lint-ignore no-explicit-any
  spec: ToolSpec<any, any>;
  // deno-lint-ignore no-explicit-any
  run: (args: any, principal: Principal) => Promise<ToolAnswer<unknown>>;
  deps: AppDeps;
}

/**
 * The tools of one server, declared once: zod schemas, descriptions and `tools/list` entries are built once, not
 * on every request (the servers are stateless and built per request).
 */
export class ToolSet {
  /** The declared tools in registration order. */
  readonly tools: DeclaredTool[] = [];
}

/** Where register functions put their tools. */
export type ToolTarget = ToolSet;

/** Declares `spec` with handler `run` in `target`; `run` gets the parsed arguments and the caller. */
export function addTool<I extends z.ZodObject, O extends z.ZodObject>(
  target: ToolTarget,
  deps: AppDeps,
  spec: ToolSpec<I, O>,
  run: (args: z.infer<I>, principal: Principal) => Promise<ToolAnswer<z.infer<O>>>,
): void {
  target.tools.push({ spec, run, deps });
}

/**
 * Answers a call of `tool` with the raw `args` for `principal` (none: `not_found`): the arguments are checked
 * against the input schema (failing: `invalid_arguments`, worded as the SDK words it), the handler runs
 * ({@linkcode callDeclared}), and structured content that fails the output schema becomes `internal_error`.
 * Never throws.
 */
export async function answerToolCall(
  tool: DeclaredTool,
  args: unknown,
  principal: Principal | undefined,
  requestId?: string,
): Promise<CallToolResult> {
  const input = await tool.spec.input["~standard"].validate(args ?? {});
  if (input.issues) {
    return sdkWorded(
      "invalid_arguments",
      `Input validation error: Invalid arguments for tool ${tool.spec.name}: ${issuesText(input.issues)}`,
    );
  }
  return await checkedOutput(tool, await callDeclared(tool, input.value, principal, requestId));
}

/** `result` when it is an error or its structured content passes the tool's output schema; else `internal_error`. */
async function checkedOutput(tool: DeclaredTool, result: CallToolResult): Promise<CallToolResult> {
  if (result.isError) return result;
  const prefix = `Output validation error: Tool ${tool.spec.name}`;
  if (result.structuredContent === undefined) {
    return sdkWorded(
      "internal_error",
      `${prefix} has an output schema but no structured content was provided`,
    );
  }
  const output = await tool.spec.output["~standard"].validate(result.structuredContent);
  if (!output.issues) return result;
  return sdkWorded(
    "internal_error",
    `Output validation error: Invalid structured content for tool ${tool.spec.name}: ${
      issuesText(output.issues)
    }`,
  );
}

/**
 * Runs a declared tool with arguments that passed its input schema, for `principal` (none: `not_found`), and
 * shapes the answer as a tool result: structured content plus its text, or an `isError` result with the code of a
 * domain error (`invalid_arguments` for text holding a NUL character, which no column can store). Never throws;
 * an unexpected error is logged with `requestId`.
 */
async function callDeclared(
  tool: DeclaredTool,
  args: unknown,
  principal: Principal | undefined,
  requestId?: string,
): Promise<CallToolResult> {
  try {
    if (!principal) throw new AppError("not_found");
    const nul = nulPath(args);
    if (nul) throw new AppError("invalid_arguments", { field: nul, reason: "nul_character" });
    const answer = await tool.run(args, principal);
    return {
      structuredContent: answer.data as Record<string, unknown>,
      content: [{ type: "text" as const, text: answer.text }],
    };
  } catch (err) {
    return toolError(tool.deps, err, tool.spec.name, requestId);
  }
}

/** The JSON Schema draft the SDK converts tool schemas to. */
const JSON_SCHEMA_TARGET = "draft-2020-12";

const listings = new WeakMap<DeclaredTool, Tool>();

/**
 * The `tools/list` entry of `tool`, built on first use and kept: the fields and their order as `McpServer` lists
 * a registered tool, the input schema with `type: "object"` first, the output schema as converted.
 */
export function listingOf(tool: DeclaredTool): Tool {
  let listed = listings.get(tool);
  if (!listed) {
    const { spec } = tool;
    listed = {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: { type: "object", ...jsonSchemaOf(spec.input, "input") },
      annotations: spec.annotations,
      outputSchema: outputSchemaJson(spec.output),
    };
    listings.set(tool, listed);
  }
  return listed;
}

/** The JSON Schema of `tool`'s structured content, as listed (for `Server.projectCallToolResult`). */
export function outputSchemaOf(tool: DeclaredTool): Record<string, unknown> | undefined {
  return listingOf(tool).outputSchema;
}

function outputSchemaJson(schema: StandardSchemaWithJSON): Tool["outputSchema"] {
  const json = jsonSchemaOf(schema, "output");
  // Our outputs are zod objects, whose JSON Schema names its type; the SDK keeps such a schema as it is.
  return (json.type === undefined ? { type: "object", ...json } : json) as Tool["outputSchema"];
}

function jsonSchemaOf(schema: StandardSchemaWithJSON, io: "input" | "output"): Record<string, unknown> {
  return schema["~standard"].jsonSchema[io]({ target: JSON_SCHEMA_TARGET });
}

/** A failure of the SDK-side checks as a coded tool result: `code` plus the message as its hint. */
function sdkWorded(code: "invalid_arguments" | "internal_error", message: string): CallToolResult {
  return codedError(code, truncate(message, 2000));
}

/** Schema issues as the SDK prints them: `path.to.field: message` (the message alone at the root), comma-joined. */
function issuesText(
  issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>,
): string {
  return issues.map((issue) => {
    if (!issue.path?.length) return issue.message;
    const path = issue.path.map((p) => String(typeof p === "object" ? p.key : p)).join(".");
    return `${path}: ${issue.message}`;
  }).join(", ");
}

/** The annotations of a tool that acts inside this service only (no open world). */
function hints(readOnlyHint: boolean, destructiveHint: boolean, idempotentHint: boolean): ToolAnnotations {
  return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint: false };
}

/** Annotations of a tool that only reads. */
export const READ_ONLY: ToolAnnotations = hints(true, false, true);

/** Annotations of a tool that adds something and is not idempotent (e.g. sends a message). */
export const ADDS: ToolAnnotations = hints(false, false, false);

/** Annotations of a tool that changes something in place; calling it twice has the same effect as once. */
export const UPDATES: ToolAnnotations = hints(false, false, true);

/** Annotations of a tool that removes, cancels or withdraws something (idempotent). */
export const DESTROYS: ToolAnnotations = hints(false, true, true);
