/**
 * SQL of listing photos (tables `photos` and `photo_variants`, migration 0026). Statements for a provider are
 * scoped to one office; the public reads join the listing and answer only for published listings. Counts are cast
 * to `int` and bytes travel as `bytea` (a `Uint8Array` on both drivers).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";
import type { ListingStatus } from "./office_listings.ts";

type Q = Kysely<Database>;

/** The media type of a stored variant. */
export type VariantMime = "image/webp" | "image/jpeg";

/** One variant as listed (never its bytes). */
export interface VariantRow {
  mime: VariantMime;
  width: number;
  height: number;
  sha256: string;
  size_bytes: number;
}

/** One photo as listed, with its variants. */
export interface PhotoRow {
  id: string;
  listing_id: string;
  position: number;
  alt_text: string | null;
  width: number;
  height: number;
  source_type: string;
  source_bytes: number;
  created_at: Date;
  variants: VariantRow[];
}

/** A new photo to store. */
export interface NewPhoto {
  listingId: string;
  officeId: string;
  position: number;
  altText: string | null;
  sourceType: string;
  sourceBytes: number;
  sourceSha256: string;
  width: number;
  height: number;
  at: Date;
  variants: (VariantRow & { bytes: Uint8Array })[];
}

/** The office's listing `listingId` with its status, row-locked until commit (photo changes serialise on it). */
export async function lockPhotoListing(
  q: Q,
  officeId: string,
  listingId: string,
): Promise<{ status: ListingStatus } | undefined> {
  const r = await sql<{ status: ListingStatus }>`select status from listings
    where id = ${listingId} and office_id = ${officeId} for update`.execute(q);
  return r.rows[0];
}

/** The listing of the office's photo `photoId`, or undefined. */
export async function photoListingOf(q: Q, officeId: string, photoId: string): Promise<string | undefined> {
  const r = await sql<{ listing_id: string }>`select listing_id::text as listing_id from photos
    where id = ${photoId} and office_id = ${officeId}`.execute(q);
  return r.rows[0]?.listing_id;
}

type RawJoined = Omit<PhotoRow, "variants" | "created_at"> & {
  created_at: Date | string;
  mime: VariantMime | null;
  v_width: number | null;
  v_height: number | null;
  sha256: string | null;
  size_bytes: number | null;
};

const JOINED =
  sql`p.id::text as id, p.listing_id::text as listing_id, p.position, p.alt_text, p.width, p.height,
  p.source_type, p.source_bytes, p.created_at, v.mime, v.width as v_width, v.height as v_height, v.sha256,
  v.size_bytes`;

/** Groups joined photo/variant rows (ordered by listing, position) into photos with their variants. */
function grouped(rows: RawJoined[]): PhotoRow[] {
  const out: PhotoRow[] = [];
  for (const r of rows) {
    let p = out.at(-1);
    if (!p || p.id !== r.id) {
      const { mime: _m, v_width: _w, v_height: _h, sha256: _s, size_bytes: _b, ...photo } = r;
      p = { ...photo, created_at: new Date(r.created_at), variants: [] };
      out.push(p);
    }
    if (r.mime !== null) {
      p.variants.push({
        mime: r.mime,
        width: r.v_width!,
        height: r.v_height!,
        sha256: r.sha256!,
        size_bytes: r.size_bytes!,
      });
    }
  }
  return out;
}

/** The photos of listing `listingId` in order, with their variants (WebP by width, then the JPEG). */
export async function listPhotoRows(q: Q, listingId: string): Promise<PhotoRow[]> {
  const r = await sql<RawJoined>`select ${JOINED} from photos p
    left join photo_variants v on v.photo_id = p.id
    where p.listing_id = ${listingId}
    order by p.position, v.mime desc, v.width`.execute(q);
  return grouped(r.rows);
}

/**
 * The photos of those of `listingIds` that are published, in order, with their variants; `titleOnly` reads
 * only each listing's title image (position 0).
 */
export async function publishedPhotoRows(
  q: Q,
  listingIds: string[],
  titleOnly: boolean,
): Promise<PhotoRow[]> {
  if (listingIds.length === 0) return [];
  const ids = sql.join(listingIds.map((id) => sql`${id}::uuid`));
  const r = await sql<RawJoined>`select ${JOINED} from photos p
    join listings l on l.id = p.listing_id and l.status = 'published'
    left join photo_variants v on v.photo_id = p.id
    where p.listing_id in (${ids}) ${titleOnly ? sql`and p.position = 0` : sql``}
    order by p.listing_id, p.position, v.mime desc, v.width`.execute(q);
  return grouped(r.rows);
}

/** The source hashes the listing's photos were made from. */
export async function photoSourceHashes(q: Q, listingId: string): Promise<Map<string, string>> {
  const r = await sql<{ id: string; source_sha256: string }>`select id::text as id, source_sha256 from photos
    where listing_id = ${listingId}`.execute(q);
  return new Map(r.rows.map((x) => [x.source_sha256, x.id]));
}

/** Stores photo `p` with its variants; returns its id. */
export async function insertPhoto(q: Q, p: NewPhoto): Promise<string> {
  const r = await sql<
    { id: string }
  >`insert into photos (listing_id, office_id, position, alt_text, source_type,
      source_bytes, source_sha256, width, height, created_at)
    values (${p.listingId}, ${p.officeId}, ${p.position}, ${p.altText}, ${p.sourceType}, ${p.sourceBytes},
      ${p.sourceSha256}, ${p.width}, ${p.height}, ${p.at})
    returning id::text as id`.execute(q);
  const id = r.rows[0]!.id;
  const rows = p.variants.map((v) =>
    sql`(${id}::uuid, ${v.mime}, ${v.width}, ${v.height}, ${v.sha256}, ${v.size_bytes}, ${v.bytes}::bytea)`
  );
  await sql`insert into photo_variants (photo_id, mime, width, height, sha256, size_bytes, bytes)
    values ${sql.join(rows)}`.execute(q);
  return id;
}

/** Sets the positions of the listing's photos: `ids[i]` gets position i (one statement). */
export async function setPhotoPositions(q: Q, listingId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = sql.join(ids.map((id, i) => sql`(${id}::uuid, ${i}::int)`));
  await sql`update photos p set position = x.pos from (values ${rows}) as x(id, pos)
    where p.id = x.id and p.listing_id = ${listingId} and p.position <> x.pos`.execute(q);
}

/** Sets (or with null clears) the alt text of photo `photoId`. */
export async function setPhotoAltText(q: Q, photoId: string, altText: string | null): Promise<void> {
  await sql`update photos set alt_text = ${altText} where id = ${photoId}`.execute(q);
}

/** Deletes the photos `ids` (their variants go with them). */
export async function deletePhotoRows(q: Q, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`delete from photos where id in (${sql.join(ids.map((id) => sql`${id}::uuid`))})`.execute(q);
}

/** Which variant a request names: the hash of its bytes, its width and its media type. */
export interface VariantKey {
  sha256: string;
  width: number;
  mime: VariantMime;
}

/**
 * The bytes of the variant `k` when a photo holding it belongs to a published listing, or to any listing of
 * `officeId` when given; undefined otherwise. With `withBytes` false only whether it may be served (`bytes`
 * empty), for answers that send no body (304).
 */
export async function servableVariant(
  q: Q,
  k: VariantKey,
  officeId: string | null,
  withBytes: boolean,
): Promise<{ bytes: Uint8Array } | undefined> {
  const visible = officeId === null ? sql`l.status = 'published'` : sql`l.office_id = ${officeId}`;
  const r = await sql<{ bytes: Uint8Array | null }>`select ${withBytes ? sql`v.bytes` : sql`null`} as bytes
    from photo_variants v
    join photos p on p.id = v.photo_id
    join listings l on l.id = p.listing_id
    where v.sha256 = ${k.sha256} and v.width = ${k.width} and v.mime = ${k.mime} and ${visible}
    limit 1`.execute(q);
  const row = r.rows[0];
  if (!row) return undefined;
  return { bytes: row.bytes ?? new Uint8Array(0) };
}
