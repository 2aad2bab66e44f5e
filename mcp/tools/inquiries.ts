/** MCP tools: inquiries (being written). */
import type { McpServer } from "@modelcontextprotocol/server";
import type { AppDeps } from "../../routes/env.ts";

/** Registers the inquiries tools. */
export function registerSeekerInquiryTools(_server: McpServer, _deps: AppDeps): void {}

/** Registers the inquiries tools. */
export function registerProviderInquiryTools(_server: McpServer, _deps: AppDeps): void {}
