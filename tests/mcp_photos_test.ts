/**
 * The provider's photo tools through real MCP clients (v2 modern and v1): upload_photo stores a JPEG with GPS
 * EXIF without it, and the absolute URLs it answers are served; get_property shows the photos with alt texts;
 * update_photo and delete_photo change order, title image and alt text; hostile uploads are `isError` results
 * naming the reason, with nothing stored; another office's photos answer not_found.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApiKey } from "../auth/api_keys.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { ensureOffice } from "../db/offices.ts";
import { connectClient, type ConnectedClient, mcpWorld } from "./mcp_helpers.ts";
import { contains, GPS_MARK, jpegWithMetadata, pngBombHeader, testImage } from "./photo_fixtures.ts";
import { fileWorld } from "./helpers.ts";

const w = await fileWorld(() => mcpWorld());
const db = w.tdb.db;
const office2 = await ensureOffice(db, "Zweites Fotobüro");
const provider2 = await insertUser(db, { email: "foto2@example.org", name: "Zweit", role: "seeker" });
await startMembership(db, provider2, office2);
const key2 = (await createApiKey(db, provider2, "Zweitbüro")).key;

// deno-lint-ignore no-explicit-any
type Json = any;

async function ok(c: ConnectedClient, name: string, args: Record<string, unknown>): Promise<Json> {
  const res = await c.callTool(name, args);
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

async function fails(
  c: ConnectedClient,
  name: string,
  args: Record<string, unknown>,
): Promise<[string, string]> {
  const res = await c.callTool(name, args);
  assert.equal(res.isError, true, `${name} should fail`);
  return [JSON.parse(res.content[0].text).error, res.content[1]?.text ?? ""];
}

async function photoRows(): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from photos`.execute(db.kysely);
  return r.rows[0]!.n;
}

for (const kind of ["v2-modern", "v1"] as const) {
  Deno.test(`${kind}: upload_photo, get_property, update_photo, delete_photo`, async () => {
    const c = await connectClient(kind, w.url, w.provider.key);
    const other = await connectClient(kind, w.url, key2);
    try {
      const gps = await jpegWithMetadata(600 + kind.length, 400);
      const up = await ok(c, "upload_photo", {
        objekt_id: w.listingId,
        inhalt: gps.toBase64(),
        name: "fassade.jpg",
        alt_text: "Fassade von der Straße",
      });
      assert.equal(up.neu, true);
      const first = up.fotos.at(-1);
      assert.equal(first.alt_text, "Fassade von der Straße");
      const url = first.varianten[0].url as string;
      assert.ok(url.startsWith(`${w.origin}/fotos/`), url);
      const served = await fetch(url);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get("content-type"), "image/webp");
      assert.ok(!contains(new Uint8Array(await served.arrayBuffer()), GPS_MARK));

      const again = await ok(c, "upload_photo", { objekt_id: w.listingId, inhalt: gps.toBase64() });
      assert.equal(again.neu, false);
      const second = await ok(c, "upload_photo", {
        objekt_id: w.listingId,
        inhalt: (await testImage(300, 200, "png", kind.length)).toBase64(),
      });
      const ids = second.fotos.map((p: Json) => p.foto_id);

      const got = await ok(c, "get_property", { id: w.listingId });
      assert.deepEqual(got.fotos.map((p: Json) => p.foto_id), ids);
      assert.equal(
        got.fotos.find((p: Json) => p.foto_id === first.foto_id).alt_text,
        "Fassade von der Straße",
      );

      const moved = await ok(c, "update_photo", { foto_id: ids.at(-1), position: 0, alt_text: "Grundriss" });
      assert.equal(moved.fotos[0].foto_id, ids.at(-1));
      assert.equal(moved.fotos[0].titelbild, true);
      assert.equal(moved.fotos[0].alt_text, "Grundriss");

      // Another office: not_found, nothing changed.
      const before = await photoRows();
      assert.equal((await fails(other, "update_photo", { foto_id: ids[0], position: 3 }))[0], "not_found");
      assert.equal((await fails(other, "delete_photo", { foto_id: ids[0] }))[0], "not_found");
      assert.equal(
        (await fails(other, "upload_photo", { objekt_id: w.listingId, inhalt: gps.toBase64() }))[0],
        "not_found",
      );
      assert.equal(await photoRows(), before);

      const left = await ok(c, "delete_photo", { foto_id: ids.at(-1) });
      assert.equal(left.fotos.length, ids.length - 1);
      assert.equal(left.fotos[0].titelbild, true);
      assert.equal((await fetch(moved.fotos[0].varianten[0].url)).status, 404, "a deleted photo is gone");
    } finally {
      await c.close();
      await other.close();
    }
  });
}

Deno.test("hostile uploads through upload_photo are refused with their reason; nothing is stored", async () => {
  const c = await connectClient("v2-modern", w.url, w.provider.key);
  try {
    const before = await photoRows();
    const cases: Array<[string, string, RegExp]> = [
      ["not Base64!", "invalid_request", /Base64/],
      ["", "invalid_request", /empty/],
      [
        new TextEncoder().encode("<html><body>hi</body></html>").toBase64(),
        "unsupported_media_type",
        /unsupported_type/,
      ],
      [pngBombHeader(20_000, 20_000).toBase64(), "invalid_request", /too_many_pixels/],
      [(await testImage(400, 300)).subarray(0, 2000).toBase64(), "invalid_request", /unreadable/],
    ];
    for (const [inhalt, code, why] of cases) {
      const [error, text] = await fails(c, "upload_photo", { objekt_id: w.listingId, inhalt, name: "x.jpg" });
      assert.equal(error, code, inhalt.slice(0, 20));
      assert.match(text, why);
    }
    assert.equal((await fails(c, "update_photo", { foto_id: crypto.randomUUID() }))[0], "invalid_request");
    assert.equal(await photoRows(), before);
  } finally {
    await c.close();
  }
});
