/**
 * GET (and HEAD) `/fotos/<sha256>-<width>.<webp|jpg>`: a photo variant of a published listing
 * (docs/contract.md §2.8). The name is the hash of the bytes, so an answer never changes: it is cached for a year
 * as `immutable`, its ETag is the hash, and a matching `If-None-Match` answers 304 without reading the bytes. A
 * name the service did not give out, and the photos of listings that are not published (withdrawn, reserved,
 * draft, deleted), answer 404 `{error: "not_found"}`. Like the pages, not rate limited.
 */
import { Hono } from "hono";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { parseVariantName, PHOTO_PATH, photoVariant } from "../photos/serving.ts";
import type { AppEnv } from "./env.ts";

export { PHOTO_PATH };

/** Cache-Control of a variant: a year, never revalidated (its name changes when its bytes do). */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** Whether an `If-None-Match` header names entity tag `etag` (weak or strong, or `*`). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").map((t) => t.trim().replace(/^W\//, "")).some((t) => t === "*" || t === etag);
}

/** The photo sub-app, mounted at {@linkcode PHOTO_PATH}. */
export function photoRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/:name", async (c) => {
    const key = parseVariantName(c.req.param("name"));
    if (!key) throw new AppError("not_found");
    const etag = `"${key.sha256}"`;
    const fresh = etagMatches(c.req.header("if-none-match"), etag);
    const found = await photoVariant(deps, key, { public: true }, !fresh);
    if (!found) throw new AppError("not_found");
    const headers = {
      "cache-control": IMMUTABLE,
      "etag": etag,
      "x-content-type-options": "nosniff",
    };
    if (fresh) return c.body(null, 304, headers);
    return c.body(found.bytes as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-type": key.mime });
  });
  return app;
}
