/** MCP tools: viewings (being written). */
import type { McpServer } from "@modelcontextprotocol/server";
import type { AppDeps } from "../../routes/env.ts";

/** Registers the viewings tools. */
export function registerSeekerViewingTools(_server: McpServer, _deps: AppDeps): void {}

/** Registers the viewings tools. */
export function registerProviderViewingTools(_server: McpServer, _deps: AppDeps): void {}
