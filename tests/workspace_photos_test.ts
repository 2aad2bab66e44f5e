/**
 * The workspace's photo forms over HTTP (docs/contract.md §4.13, §5.7): a member of another office, a seeker and
 * an unknown id get the workspace's one 404 for the photos page, the upload, a change and the office's own photo
 * addresses, and nothing is stored; a forged token is refused (403); a body above the upload limit answers a page
 * saying so (413) before anything is read; more than 20 images at once, a bad alt text and an unknown action are
 * refused on the page and change nothing. Runs on PGlite or DATABASE_URL.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createPerson } from "../auth/accounts.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { PHOTO_UPLOAD_BODY_MAX } from "../photos/photos.ts";
import { closeAfterAll, openTestDb, request, serveTestApp } from "./helpers.ts";
import { testImage } from "./photo_fixtures.ts";

const PASSWORD = "foto-werkbank-123";
const tdb = await openTestDb();
const db = tdb.db;
const served = await serveTestApp(db);
const a = served.app;
closeAfterAll(served, tdb);

const officeA = await ensureOffice(db, "Fotobüro A");
const officeB = await ensureOffice(db, "Fotobüro B");
async function person(email: string, role: "provider" | "seeker", office?: string): Promise<void> {
  const id = await createPerson(a.auth, db, { email, name: "Person", password: PASSWORD, role });
  if (office) await startMembership(db, id, office);
}
await person("foto.a@example.org", "provider", officeA);
await person("foto.b@example.org", "provider", officeB);
await person("foto.seeker@example.org", "seeker");

const row: NewListing = {
  status: "draft",
  reference: null,
  title: "Fotowohnung",
  description: null,
  city: "Bildstadt",
  postal_code: "10115",
  property_type: "apartment",
  transaction_type: "rent",
  asked_price: 900,
  total_rooms: 2,
  square_meters: 50,
  latitude: null,
  longitude: null,
  beispiel: false,
  published_at: null,
};
const [listingA] = await insertListings(db, officeA, [row]);

/** A cookie jar over `app.request` (no redirects followed). */
class Jar {
  readonly cookies = new Map<string, string>();
  async send(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; html: string; headers: Headers }> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("accept-language", "de-DE");
    const res = await request(a.app, path, { ...init, headers });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(c) || value === "") this.cookies.delete(pair!.slice(0, eq).trim());
      else this.cookies.set(pair!.slice(0, eq).trim(), value);
    }
    const type = res.headers.get("content-type") ?? "";
    const html = type.startsWith("image/") ? "" : await res.text();
    if (type.startsWith("image/")) await res.body?.cancel();
    return { status: res.status, html, headers: res.headers };
  }
  post(path: string, fields: Record<string, string>) {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: this.cookies.get("immo_csrf") ?? "", ...fields }),
    });
  }
  upload(path: string, files: Array<[string, Uint8Array]>, token = this.cookies.get("immo_csrf") ?? "") {
    const body = new FormData();
    body.set("_csrf", token);
    for (const [name, bytes] of files) {
      body.append("fotos", new File([bytes as Uint8Array<ArrayBuffer>], name, { type: "image/jpeg" }));
    }
    return this.send(path, { method: "POST", body });
  }
  async signIn(email: string): Promise<this> {
    await this.send("/anmelden");
    const res = await this.post("/anmelden", { email, password: PASSWORD });
    assert.equal(res.status, 303, res.html);
    await this.send("/"); // sets the CSRF cookie
    return this;
  }
}

const agentA = await new Jar().signIn("foto.a@example.org");
const agentB = await new Jar().signIn("foto.b@example.org");
const seeker = await new Jar().signIn("foto.seeker@example.org");

const photoCount = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from photos`.execute(db.kysely)).rows[0]!.n;

const jpeg = await testImage(400, 300, "jpeg", 7);
const base = `/anbieter/objekte/${listingA}/fotos`;
const up = await agentA.upload(base, [["a.jpg", jpeg]]);
assert.equal(up.status, 303, up.html);
const page = await agentA.send(base);
const photoId = /data-photo-id="([0-9a-f-]{36})"/.exec(page.html)![1]!;
const ownUrl = /src="(\/anbieter\/fotos\/[0-9a-f]{64}-\d+\.jpg)"/.exec(page.html)![1]!;

Deno.test("workspace photos: other offices, seekers and unknown ids get the one 404; nothing changes", async () => {
  assert.equal((await agentA.send(ownUrl)).status, 200, "the office sees its draft's photo");
  const before = await photoCount();
  for (const jar of [agentB, seeker]) {
    assert.equal((await jar.send(base)).status, 404);
    assert.equal((await jar.upload(base, [["b.jpg", jpeg]])).status, 404);
    assert.equal((await jar.post(`${base}/${photoId}`, { aktion: "delete" })).status, 404);
    assert.equal((await jar.send(ownUrl)).status, 404);
  }
  for (const id of [crypto.randomUUID(), "kein-objekt"]) {
    assert.equal((await agentA.send(`/anbieter/objekte/${id}/fotos`)).status, 404);
    assert.equal((await agentA.upload(`/anbieter/objekte/${id}/fotos`, [["c.jpg", jpeg]])).status, 404);
  }
  assert.equal((await agentA.post(`${base}/${crypto.randomUUID()}`, { aktion: "delete" })).status, 404);
  assert.equal((await agentA.send(ownUrl.replace(/[0-9a-f]{64}/, "0".repeat(64)))).status, 404);
  assert.equal((await request(a.app, ownUrl, { redirect: "manual" })).status, 303, "not signed in");
  assert.equal(await photoCount(), before);
});

Deno.test("workspace photos: forged, oversized and over-many uploads and bad changes store nothing", async () => {
  const before = await photoCount();
  assert.equal((await agentA.upload(base, [["d.jpg", jpeg]], "falsch")).status, 403);
  const huge = await agentA.send(base, {
    method: "POST",
    headers: {
      "content-type": "multipart/form-data; boundary=x",
      "content-length": String(PHOTO_UPLOAD_BODY_MAX + 1),
    },
    body: "--x--",
  });
  assert.equal(huge.status, 413);
  assert.match(huge.html, /zusammen größer als 64 MB/);
  const small = await agentA.send(`/anbieter/objekte/${listingA}/dokumente`, {
    method: "POST",
    headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(600 * 1024) },
    body: "--x--",
  });
  assert.equal(small.status, 413, "other forms keep the 512 KB limit");
  const many = await agentA.upload(base, Array.from({ length: 21 }, (_, i) => [`${i}.jpg`, jpeg]));
  assert.equal(many.status, 400);
  assert.match(many.html, /Höchstens 20 Fotos auf einmal/);
  const none = await agentA.send(base, {
    method: "POST",
    body: (() => {
      const f = new FormData();
      f.set("_csrf", agentA.cookies.get("immo_csrf")!);
      f.set("fotos", new File([], "", { type: "application/octet-stream" }));
      return f;
    })(),
  });
  assert.equal(none.status, 400);
  assert.match(none.html, /mindestens ein Foto/);
  const alt = await agentA.post(`${base}/${photoId}`, { aktion: "alt", alt_text: "x".repeat(301) });
  assert.equal(alt.status, 400);
  assert.match(alt.html, /höchstens 300 Zeichen/);
  assert.equal((await agentA.post(`${base}/${photoId}`, { aktion: "sprengen" })).status, 404);
  assert.equal(await photoCount(), before);
  const stored = await sql<{ alt_text: string | null }>`select alt_text from photos where id = ${photoId}`
    .execute(db.kysely);
  assert.equal(stored.rows[0]!.alt_text, null);
});
