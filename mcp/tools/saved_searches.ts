/** MCP tools: saved_searches (being written). */
import type { McpServer } from "@modelcontextprotocol/server";
import type { AppDeps } from "../../routes/env.ts";

/** Registers the saved_searches tools. */
export function registerSavedSearchTools(_server: McpServer, _deps: AppDeps): void {}
