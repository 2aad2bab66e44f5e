/**
 * The inbound webhook of the social inbox, in the format of Meta's Graph webhooks, at `/api/inbound/social`:
 * GET answers the subscription check, POST takes signed deliveries (see `social/inbox.ts`). A plain route, not
 * part of the public OpenAPI description; off (404) unless SOCIAL_APP_SECRET and SOCIAL_VERIFY_TOKEN are set.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { receiveDelivery, subscriptionCheck } from "../social/inbox.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";
import { writeLimit } from "./rate_limit.ts";

/** Path of the social webhook endpoint (where {@linkcode socialRoutes} is mounted). */
export const SOCIAL_WEBHOOK_PATH = "/api/inbound/social";

/** The social webhook, mounted at {@linkcode SOCIAL_WEBHOOK_PATH}; its POSTs count in the write bucket. */
export function socialRoutes(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", writeLimit(deps));
  app.get("/", (c) => {
    const r = subscriptionCheck(deps, {
      mode: c.req.query("hub.mode"),
      token: c.req.query("hub.verify_token"),
      challenge: c.req.query("hub.challenge"),
    });
    if (!r.ok) return c.json({ error: r.error }, r.status);
    return c.text(r.challenge, 200);
  });
  app.post("/", async (c) => {
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const r = await receiveDelivery(deps, raw, c.req.header("x-hub-signature-256"));
    if (!r.ok) return c.json({ error: r.error }, r.status);
    const { stored, duplicates, unconnected, ignored } = r;
    return c.json({ stored, duplicates, unconnected, ignored }, 200);
  });
  return app;
}
