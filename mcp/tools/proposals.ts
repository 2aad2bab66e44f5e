/** MCP tools of the provider server: proposals (filled by its work package). */
import type { AppDeps } from "../../routes/env.ts";
import type { ToolTarget } from "./define.ts";

/** Registers the proposals tools of the provider server. */
export function registerProposalTools(_server: ToolTarget, _deps: AppDeps): void {
}
