/** Inbound social endpoints (filled by its work package). */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "./env.ts";

/** The social routes. */
export function socialRoutes(_deps: AppDeps): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>();
}
