/** Renders domain errors as MCP `isError` tool results (never a thrown JSON-RPC error). */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../deps.ts";

const TEXT_DE: Partial<Record<string, string>> = {
  not_found: "Nicht gefunden: Das gibt es nicht (mehr), oder es gehört nicht zu Ihrem Konto.",
  invalid_request: "Ungültige Eingabe.",
  invalid_arguments: "Ungültige Argumente.",
  conflict: "Nicht möglich im jetzigen Zustand.",
  rate_limited:
    "Zu viele Anfragen: Grenze erreicht, es wurde nichts gesendet. Bitte später erneut versuchen.",
  internal_error: "Interner Fehler.",
};

/** An `isError` result for `code` with an optional human `detail` (never secrets or SQL). */
export function codedError(code: string, detail?: string): CallToolResult {
  const hint = TEXT_DE[code] ?? code;
  return {
    isError: true,
    content: [
      { type: "text", text: JSON.stringify({ error: code }) },
      { type: "text", text: detail ? `${hint} ${detail}` : hint },
    ],
  };
}

/**
 * An `isError` result whose first text block is the JSON `{"error": code}` and whose second is a German hint
 * (plus the error's detail); logs unexpected errors. It carries no `structuredContent`: SDK 1.x clients validate
 * structured content against the tool's output schema even on error results and would reject the call.
 */
export function toolError(deps: AppDeps, err: unknown, tool: string, requestId?: string): CallToolResult {
  if (err instanceof AppError) return codedError(err.code, err.detail);
  deps.log.log("error", "mcp tool failed", {
    requestId,
    tool,
    error: err instanceof Error ? err.message : String(err),
  });
  return codedError("internal_error");
}
