/** MCP tools of the provider server: openimmo (filled by its work package). */
import type { AppDeps } from "../../routes/env.ts";
import type { ToolTarget } from "./define.ts";

/** Registers the openimmo tools of the provider server. */
export function registerOpenImmoTools(_server: ToolTarget, _deps: AppDeps): void {
}
