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

/** Registers `spec` on `server`; `run` is called with the parsed arguments and the caller. */
export function addTool<I extends z.ZodObject, O extends z.ZodObject>(
  server: McpServer,
  deps: AppDeps,
  spec: ToolSpec<I, O>,
  run: (args: z.infer<I>, principal: Principal) => Promise<ToolAnswer<z.infer<O>>>,
): void {
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: spec.annotations,
    },
    (async (args: z.infer<I>, ctx: Parameters<typeof principalOf>[0]) => {
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
