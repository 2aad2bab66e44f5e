/**
 * The public listing pages (server-rendered, German or English, no JavaScript): the search (`search_page.tsx`),
 * the listing with its inquiry form (`listing_page.tsx`).
 */
import { Hono } from "hono";
import type { AppEnv } from "../routes/env.ts";
import type { PageCtx } from "./common.ts";
import { inquire, inquirySentPage, listingPage } from "./listing_page.tsx";
import { searchPage } from "./search_page.tsx";

/** The listing page routes: `/objekte`, `/objekte/{id}`, `/objekte/{id}/anfrage` (+ its confirmation). */
export function listingPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/objekte", (c) => searchPage(ctx, c));
  app.get("/objekte/:id", (c) => listingPage(ctx, c, {}));
  app.post("/objekte/:id/anfrage", (c) => inquire(ctx, c));
  app.get("/objekte/:id/anfrage/gesendet", (c) => inquirySentPage(ctx, c));
  return app;
}

// --- search ------------------------------------------------------------------------------------------------
