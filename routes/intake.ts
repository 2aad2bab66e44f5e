/** Inbound intake endpoints (filled by its work package). */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "./env.ts";

/** The intake routes. */
export function intakeRoutes(_deps: AppDeps): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>();
}
