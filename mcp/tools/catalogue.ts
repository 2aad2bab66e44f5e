/** MCP tools: catalogue (being written). */
import type { McpServer } from "@modelcontextprotocol/server";
import type { AppDeps } from "../../routes/env.ts";

/** Registers the catalogue tools. */
export function registerSeekerCatalogueTools(_server: McpServer, _deps: AppDeps): void {}
