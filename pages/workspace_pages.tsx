/** The agent's workspace under /anbieter (issue 22; being built). */
import { Hono } from "hono";
import type { AppEnv } from "../routes/env.ts";
import type { PageCtx } from "./common.ts";

/** The routes of this page module (placeholder until built). */
export function workspacePageRoutes(_ctx: PageCtx): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
