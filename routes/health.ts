/** GET /healthz: whether the database and KV answer (200) or not (503). */
import { Hono } from "hono";
import { pingDb } from "../db/connection.ts";
import { healthKey } from "../db/kv_keys.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";

const TIMEOUT_MS = 2000;

/** The health sub-app, mounted at `/healthz`. */
export function healthRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    const [database, kv] = await Promise.all([
      probe(() => pingDb(deps.db)),
      probe(() => deps.kv.get(healthKey())),
    ]);
    const ok = database === "ok" && kv === "ok";
    c.header("cache-control", "no-store");
    return c.json({ status: ok ? "ok" : "unavailable", database, kv }, ok ? 200 : 503);
  });
  return app;
}

async function probe(check: () => Promise<unknown>): Promise<"ok" | "unreachable"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), TIMEOUT_MS))),
    ]);
    return "ok";
  } catch {
    return "unreachable";
  } finally {
    clearTimeout(timer);
  }
}
