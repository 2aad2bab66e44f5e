/** Renders domain errors as MCP `isError` tool results (never a thrown JSON-RPC error). */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../routes/env.ts";

const TEXT_DE: Partial<Record<string, string>> = {
  not_found: "Nicht gefunden: Dieses Objekt gibt es nicht (mehr).",
  invalid_request: "Ungültige Eingabe.",
  internal_error: "Interner Fehler.",
};

/**
 * An `isError` result whose first text block is the JSON `{"error": code}` and whose second is a German hint;
 * logs unexpected errors. It carries no `structuredContent`: SDK 1.x clients validate structured content against
 * the tool's output schema even on error results and would reject the call.
 */
export function toolError(deps: AppDeps, err: unknown, tool: string): CallToolResult {
  let code: string;
  if (err instanceof AppError) code = err.code;
  else {
    code = "internal_error";
    deps.log.log("error", "mcp tool failed", {
      tool,
      error: err instanceof Error ? err.message : String(err),
    });
  }
  return {
    isError: true,
    content: [
      { type: "text", text: JSON.stringify({ error: code }) },
      { type: "text", text: TEXT_DE[code] ?? code },
    ],
  };
}
