import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AppEnv } from "../routes/env.ts";
import { csrfToken } from "./csrf.ts";

Deno.test("csrfToken: a first visit gets one token however often the page asks, and one cookie", async () => {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => c.json([csrfToken(c, false), csrfToken(c, false)]));
  const first = await app.request("/");
  const [a, b] = await first.json() as string[];
  assert.equal(a, b);
  assert.match(a!, /^[A-Za-z0-9_-]{43}$/);
  const cookies = first.headers.getSetCookie();
  assert.equal(cookies.length, 1);
  assert.ok(cookies[0]!.startsWith(`immo_csrf=${a};`));
  // the next request carries the cookie and is answered with it, without a new one
  const again = await app.request("/", { headers: { cookie: `immo_csrf=${a}` } });
  assert.deepEqual(await again.json(), [a, a]);
  assert.equal(again.headers.getSetCookie().length, 0);
});
