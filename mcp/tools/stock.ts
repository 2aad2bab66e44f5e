/** MCP tools: stock (being written). */
import type { McpServer } from "@modelcontextprotocol/server";
import type { AppDeps } from "../../routes/env.ts";

/** Registers the stock tools. */
export function registerProviderStockTools(_server: McpServer, _deps: AppDeps): void {}
