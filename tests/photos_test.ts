/**
 * Listing photos on the real database (PGlite, or Postgres with DATABASE_URL): uploads all or nothing (a hostile
 * file refuses the whole batch, naming it, and nothing is stored), order and title image, alt texts, deletion,
 * office scoping, the per-listing limit; and serving under content-addressed URLs: headers, 304, HEAD, and 404
 * for unknown names and for listings that are not published (draft, withdrawn, reserved, deleted). The REST
 * listing keeps its 12 fields.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { LISTING_FIELDS } from "../catalogue/listing.ts";
import { publishListing, reserveListing, withdrawListing } from "../catalogue/office_listings.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import {
  addPhotos,
  deletePhoto,
  listingPhotos,
  type PhotoChange,
  PhotoRefused,
  PHOTOS_PER_LISTING_MAX,
  type PhotoUpload,
  preparePhotos,
  publishedPhotos,
  reorderPhotos,
  updatePhoto,
} from "../photos/photos.ts";
import { act } from "../deps.ts";
import { closeAfterAll, officeWho, openTestDb, request, testApp } from "./helpers.ts";
import {
  concat,
  contains,
  GPS_MARK,
  jpegWithMetadata,
  pngBombHeader,
  testImage,
  zipTail,
} from "./photo_fixtures.ts";

const tdb = await openTestDb();
const t = await testApp(tdb.db);
closeAfterAll(t, tdb);
const db = tdb.db;
const deps = t.deps;
const office = await ensureOffice(db, "Fotobüro");
const otherOffice = await ensureOffice(db, "Anderes Büro");

/** The photo writes as the workspace and the tools make them: prepared first, then one action of the office. */
async function addAs(officeId: string, listingId: string, uploads: PhotoUpload[]) {
  const ready = await preparePhotos(uploads);
  return await act(deps, officeWho(officeId), (a) => addPhotos(a, listingId, ready));
}
const updateAs = (officeId: string, photoId: string, change: PhotoChange) =>
  act(deps, officeWho(officeId), (a) => updatePhoto(a, photoId, change));
const deleteAs = (officeId: string, photoId: string) =>
  act(deps, officeWho(officeId), (a) => deletePhoto(a, photoId));
const reorderAs = (officeId: string, listingId: string, ids: string[]) =>
  act(deps, officeWho(officeId), (a) => reorderPhotos(a, listingId, ids));

let listings = 0;
async function listing(status: "draft" | "published" = "published", officeId = office): Promise<string> {
  const n = ++listings;
  const [id] = await insertListings(db, officeId, [
    {
      ...sampleListing(n, prng(n), Date.now()),
      beispiel: false,
      status,
      published_at: status === "draft" ? null : new Date(),
    },
  ]);
  return id!;
}

async function stored(): Promise<{ photos: number; variants: number }> {
  const r = await sql<{ photos: number; variants: number }>`select
    (select count(*)::int from photos) as photos, (select count(*)::int from photo_variants) as variants`
    .execute(db.kysely);
  return r.rows[0]!;
}

async function refusedWith(p: Promise<unknown>): Promise<PhotoRefused> {
  try {
    await p;
  } catch (e) {
    if (e instanceof PhotoRefused) return e;
    throw e;
  }
  throw new Error("not refused");
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "ok";
}

const jpeg = await testImage(900, 600, "jpeg", 1);
const png = await testImage(640, 480, "png", 2);
const webp = await testImage(1400, 700, "webp", 3);

Deno.test("an upload of several images stores each with its variants, in order, the first as title image", async () => {
  const id = await listing();
  const r = await addAs(office, id, [
    { bytes: jpeg, altText: "  Wohnzimmer mit Blick  " },
    { bytes: png },
    { bytes: webp, altText: "Garten" },
  ]);
  assert.equal(r.added, 3);
  assert.equal(r.duplicates, 0);
  assert.deepEqual(r.photos.map((p) => [p.position, p.titelbild, p.alt_text]), [
    [0, true, "Wohnzimmer mit Blick"],
    [1, false, null],
    [2, false, "Garten"],
  ]);
  assert.deepEqual(r.photos[0]!.varianten.map((v) => `${v.format} ${v.breite}x${v.hoehe}`), [
    "webp 320x213",
    "webp 640x427",
    "webp 900x600",
    "jpeg 900x600",
  ]);
  assert.deepEqual([r.photos[2]!.breite, r.photos[2]!.hoehe], [1400, 700]);
  for (const v of r.photos[0]!.varianten) {
    assert.match(v.url, /^\/fotos\/[0-9a-f]{64}-\d+\.(webp|jpg)$/);
  }
  // The same bytes again are not stored twice; a new one is appended.
  const again = await addAs(office, id, [{ bytes: jpeg }, {
    bytes: await testImage(300, 300, "jpeg", 9),
  }]);
  assert.equal(again.added, 1);
  assert.equal(again.duplicates, 1);
  assert.equal(again.photos.length, 4);
  assert.deepEqual(await listingPhotos(deps, office, id), again.photos);
});

Deno.test("a hostile file refuses the whole upload, naming it and why; nothing is stored", async () => {
  const id = await listing();
  const before = await stored();
  const cases: Array<[string, Uint8Array, string, string]> = [
    ["empty.jpg", new Uint8Array(0), "empty", "invalid_request"],
    [
      "bild.jpg",
      new TextEncoder().encode("<html><script>alert(1)</script></html>"),
      "unsupported_type",
      "unsupported_media_type",
    ],
    ["bombe.png", pngBombHeader(30_000, 30_000), "too_many_pixels", "invalid_request"],
    ["kaputt.jpg", jpeg.subarray(0, jpeg.length >> 1), "unreadable", "invalid_request"],
    ["archiv.jpg", concat(zipTail(), jpeg), "unsupported_type", "unsupported_media_type"],
  ];
  for (const [name, bytes, refusal, code] of cases) {
    const e = await refusedWith(addAs(office, id, [{ bytes: jpeg, name: "ok.jpg" }, {
      bytes,
      name,
    }]));
    assert.equal(e.index, 2, name);
    assert.equal(e.fileName, name);
    assert.equal(e.refusal, refusal, name);
    assert.equal(e.code, code, name);
    assert.equal(e.facts.field, "fotos.2", name);
    assert.deepEqual(e.facts.names, [refusal], name);
    assert.match(e.detail ?? "", new RegExp(`^fotos\\.2: .*${refusal}: ${name.replace(".", "\\.")}: `));
  }
  assert.deepEqual(await stored(), before, "nothing stored");
  assert.deepEqual(await listingPhotos(deps, office, id), []);
});

Deno.test("uploads are scoped to the office; limits of a listing and of one upload", async () => {
  const mine = await listing();
  const theirs = await listing("published", otherOffice);
  const before = await stored();
  assert.equal(await codeOf(addAs(office, theirs, [{ bytes: jpeg }])), "not_found");
  assert.equal(await codeOf(addAs(office, crypto.randomUUID(), [{ bytes: jpeg }])), "not_found");
  assert.equal(await codeOf(addAs(office, "nope", [{ bytes: jpeg }])), "not_found");
  assert.equal(await codeOf(listingPhotos(deps, office, theirs)), "not_found");
  assert.equal(await codeOf(addAs(office, mine, [])), "invalid_request");
  assert.equal(
    await codeOf(addAs(office, mine, [{ bytes: jpeg, altText: "x".repeat(301) }])),
    "invalid_request",
  );
  assert.deepEqual(await stored(), before);

  const small = await Promise.all(
    Array.from({ length: PHOTOS_PER_LISTING_MAX + 1 }, (_, i) => testImage(48, 32, "jpeg", 100 + i)),
  );
  for (let i = 0; i < PHOTOS_PER_LISTING_MAX; i += 20) {
    await addAs(
      office,
      mine,
      small.slice(i, Math.min(i + 20, PHOTOS_PER_LISTING_MAX)).map((bytes) => ({ bytes })),
    );
  }
  assert.equal((await listingPhotos(deps, office, mine)).length, PHOTOS_PER_LISTING_MAX);
  assert.equal(await codeOf(addAs(office, mine, [{ bytes: small.at(-1)! }])), "conflict");
  assert.equal((await listingPhotos(deps, office, mine)).length, PHOTOS_PER_LISTING_MAX);
});

Deno.test("order, title image, alt text and deletion", async () => {
  const id = await listing();
  const imgs = await Promise.all([1, 2, 3, 4].map((s) => testImage(64, 48, "jpeg", 200 + s)));
  const { photos } = await addAs(
    office,
    id,
    imgs.map((bytes, i) => ({ bytes, altText: `Bild ${i}` })),
  );
  const [a, b, c, d] = photos.map((p) => p.foto_id) as [string, string, string, string];

  // Title image: position 0; the others shift.
  let now = await updateAs(office, c, { position: 0 });
  assert.deepEqual(now.map((p) => p.foto_id), [c, a, b, d]);
  assert.deepEqual(now.map((p) => p.titelbild), [true, false, false, false]);
  now = await updateAs(office, c, { position: 99 });
  assert.deepEqual(now.map((p) => p.foto_id), [a, b, d, c]);
  now = await reorderAs(office, id, [d, c, b, a]);
  assert.deepEqual(now.map((p) => [p.foto_id, p.position]), [[d, 0], [c, 1], [b, 2], [a, 3]]);
  assert.equal(await codeOf(reorderAs(office, id, [d, c, b])), "invalid_request");
  assert.equal(await codeOf(reorderAs(office, id, [d, c, b, b])), "invalid_request");

  // Alt text: set, trimmed, cleared; control characters refused.
  now = await updateAs(office, b, { altText: "  Küche  " });
  assert.equal(now.find((p) => p.foto_id === b)!.alt_text, "Küche");
  now = await updateAs(office, b, { altText: "" });
  assert.equal(now.find((p) => p.foto_id === b)!.alt_text, null);
  assert.equal(await codeOf(updateAs(office, b, { altText: "a\u0000b" })), "invalid_request");
  assert.equal(await codeOf(updateAs(office, b, { position: -1 })), "invalid_request");

  // Deleting the title image makes the next one the title image; positions stay 0 … n-1.
  now = await deleteAs(office, d);
  assert.deepEqual(now.map((p) => [p.foto_id, p.position]), [[c, 0], [b, 1], [a, 2]]);

  // Another office's photo answers like an unknown one and changes nothing.
  const before = await listingPhotos(deps, office, id);
  assert.equal(await codeOf(updateAs(otherOffice, a, { position: 0 })), "not_found");
  assert.equal(await codeOf(deleteAs(otherOffice, a)), "not_found");
  assert.equal(await codeOf(deleteAs(office, crypto.randomUUID())), "not_found");
  assert.equal(await codeOf(reorderAs(otherOffice, id, [c, b, a])), "not_found");
  assert.deepEqual(await listingPhotos(deps, office, id), before);
});

Deno.test("serving: content-addressed, immutable, ETag and 304; 404 unless the listing is published", async () => {
  const id = await listing("draft");
  const gps = await jpegWithMetadata(800, 500);
  const { photos } = await addAs(office, id, [{ bytes: gps, altText: "Fassade" }]);
  const webpUrl = photos[0]!.varianten[0]!.url;
  const jpgUrl = photos[0]!.varianten.at(-1)!.url;
  const hash = /([0-9a-f]{64})/.exec(webpUrl)![1]!;

  assert.equal((await request(t.app, webpUrl)).status, 404, "a draft's photos are not public");
  await act(deps, officeWho(office), (a) => publishListing(a, id));
  assert.equal((await publishedPhotos(deps, [id])).get(id)?.length, 1);

  const res = await request(t.app, webpUrl);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/webp");
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(res.headers.get("etag"), `"${hash}"`);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  const body = new Uint8Array(await res.arrayBuffer());
  assert.equal(body.length, photos[0]!.varianten[0]!.bytes);
  assert.ok(!contains(body, GPS_MARK), "served bytes carry no GPS");
  const hashed = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  assert.equal(hashed.toHex(), hash, "the name is the hash of the bytes");

  const jpg = await request(t.app, jpgUrl);
  assert.equal(jpg.headers.get("content-type"), "image/jpeg");
  await jpg.body?.cancel();

  for (const inm of [`"${hash}"`, `W/"${hash}"`, `"other", "${hash}"`, "*"]) {
    const r = await request(t.app, webpUrl, { headers: { "if-none-match": inm } });
    assert.equal(r.status, 304, inm);
    assert.equal(r.headers.get("etag"), `"${hash}"`);
    assert.equal(r.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal((await r.arrayBuffer()).byteLength, 0);
  }
  const stale = await request(t.app, webpUrl, { headers: { "if-none-match": '"other"' } });
  assert.equal(stale.status, 200);
  await stale.body?.cancel();
  const head = await request(t.app, webpUrl, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-type"), "image/webp");

  // Names the service did not give out.
  const w = photos[0]!.varianten[0]!.breite;
  for (
    const path of [
      `/fotos/${hash}-${w + 1}.webp`,
      `/fotos/${hash}-${w}.jpg`,
      `/fotos/${"0".repeat(64)}-${w}.webp`,
      `/fotos/${hash.toUpperCase()}-${w}.webp`,
      `/fotos/${hash}-${w}.png`,
      `/fotos/${hash}.webp`,
      "/fotos/..%2F..%2Fetc%2Fpasswd",
      "/fotos/",
    ]
  ) {
    const r = await request(t.app, path, { headers: { accept: "image/webp,*/*" } });
    assert.equal(r.status, 404, path);
    assert.notEqual(r.headers.get("cache-control"), "public, max-age=31536000, immutable");
    await r.body?.cancel();
  }

  // Withdrawn, reserved: 404, also for a conditional request; published again: served again.
  const gone = async (why: string) => {
    assert.equal((await request(t.app, webpUrl)).status, 404, why);
    assert.equal(
      (await request(t.app, webpUrl, { headers: { "if-none-match": `"${hash}"` } })).status,
      404,
      why,
    );
    assert.equal((await publishedPhotos(deps, [id])).size, 0, why);
  };
  const asOffice = officeWho(office);
  await act(deps, asOffice, (a) => reserveListing(a, id));
  await gone("reserved");
  await act(deps, asOffice, (a) => publishListing(a, id));
  assert.equal((await request(t.app, webpUrl)).status, 200);
  await act(deps, asOffice, (a) => withdrawListing(a, id));
  await gone("withdrawn");
  await act(deps, asOffice, (a) => publishListing(a, id));
  assert.equal((await request(t.app, webpUrl)).status, 200);
  await db.kysely.deleteFrom("listings").where("id", "=", id).execute();
  assert.equal((await request(t.app, webpUrl)).status, 404, "deleted");
  const left = await sql<{ n: number }>`select count(*)::int as n from photo_variants where sha256 = ${hash}`
    .execute(db.kysely);
  assert.equal(left.rows[0]!.n, 0, "a deleted listing's photos are deleted with it");
});

Deno.test("the REST listing keeps exactly its 12 fields when it has photos", async () => {
  const id = await listing();
  await addAs(office, id, [{ bytes: jpeg }]);
  const res = await request(t.app, `/api/public/properties/${id}`);
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(await res.json()).sort(), [...LISTING_FIELDS].sort());
  assert.equal(LISTING_FIELDS.length, 12);
});
