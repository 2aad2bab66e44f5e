/** MCP tools of the provider server: documents (filled by its work package). */
import type { AppDeps } from "../../routes/env.ts";
import type { ToolTarget } from "./define.ts";

/** Registers the documents tools of the provider server. */
export function registerDocumentTools(_server: ToolTarget, _deps: AppDeps): void {
}
