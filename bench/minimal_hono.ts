/**
 * The floor of `bench:start`: a minimal hono app that answers `/api/public/properties` with an empty page, started
 * the same way as the service (`deno run` of one file from the repository).
 */
import { Hono } from "hono";

const app = new Hono();
app.get("/api/public/properties", (c) => c.json({ items: [], total: 0, page: 1, page_size: 24 }));
Deno.serve({ port: Number(Deno.env.get("PORT")), onListen: () => {} }, app.fetch);
