/** MCP tools of the provider server: social (filled by its work package). */
import type { AppDeps } from "../../routes/env.ts";
import type { ToolTarget } from "./define.ts";

/** Registers the social tools of the provider server. */
export function registerSocialTools(_server: ToolTarget, _deps: AppDeps): void {
}
