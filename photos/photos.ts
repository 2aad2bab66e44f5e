/**
 * Photos of listings (issue 31): the one place their rules live. The provider's MCP tools, the workspace pages and
 * the OpenImmo import call these functions; the serving route calls `photos/serving.ts`.
 *
 * Rules (docs/contract.md §4.13):
 * - A provider adds photos to a listing of its own office (any status): up to {@linkcode PHOTOS_PER_UPLOAD_MAX}
 *   at once, {@linkcode PHOTOS_PER_LISTING_MAX} per listing. An upload is all or nothing: every image is checked
 *   and derived first (`photos/image.ts`); one refused image refuses the whole upload with a
 *   {@linkcode PhotoRefused} naming it (1-based index, name) and why, and nothing is stored.
 * - Photos keep their order; position 0 is the title image. New photos go to the end (the first photo of a
 *   listing is its title image). Moving a photo shifts the others; deleting one closes the gap.
 * - The same upload (same bytes) to the same listing is stored once: it is answered as already there.
 * - Alt text: 1–{@linkcode ALT_TEXT_MAX} characters after trimming, no control characters; empty clears it.
 * - A listing of another office, an unknown one, a malformed id: `not_found`. Too many photos: `conflict`.
 */
import { z } from "zod";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import {
  deletePhotoRows,
  insertPhoto,
  listPhotoRows,
  lockPhotoListing,
  photoListingOf,
  type PhotoRow,
  photoSourceHashes,
  publishedPhotoRows,
  setPhotoAltText,
  setPhotoPositions,
} from "../db/photos.ts";
import { isOfficeListing } from "../db/files.ts";
import { AppError, type ErrorCode } from "../errors.ts";
import { idOrNotFound, isUuid } from "../ids.ts";
import { actingOffice, type Action, type AppDeps } from "../deps.ts";
import {
  type DerivedPhoto,
  derivePhoto,
  PHOTO_MAX_BYTES,
  PHOTO_MAX_PIXELS,
  type PhotoRefusal,
} from "./image.ts";
import { variantPath } from "./serving.ts";

/** Most photos one upload may carry. */
export const PHOTOS_PER_UPLOAD_MAX = 20;
/** Most photos a listing may have. */
export const PHOTOS_PER_LISTING_MAX = 50;
/** Longest alt text in characters. */
export const ALT_TEXT_MAX = 300;
/**
 * Largest request body of one workspace upload (several photos in one `multipart/form-data` form), in bytes: 64
 * MiB, a handful of full-size phone photos; larger sets go in several uploads (docs/contract.md §4.13).
 */
export const PHOTO_UPLOAD_BODY_MAX = 64 * 1024 * 1024;

/** The REST/MCP error code of each refusal. */
const REFUSAL_CODE: Record<PhotoRefusal, ErrorCode> = {
  empty: "invalid_request",
  too_large: "payload_too_large",
  unsupported_type: "unsupported_media_type",
  too_many_pixels: "invalid_request",
  unreadable: "invalid_request",
};

/** A human reason for each refusal (German / English), as the error's detail says it. */
const REFUSAL_TEXT: Record<PhotoRefusal, string> = {
  empty: "die Datei ist leer / the file is empty",
  too_large: `größer als ${PHOTO_MAX_BYTES / 1024 / 1024} MB / larger than ${
    PHOTO_MAX_BYTES / 1024 / 1024
  } MB`,
  unsupported_type: "kein JPEG, PNG oder WebP / not a JPEG, PNG or WebP image",
  too_many_pixels: `mehr als ${PHOTO_MAX_PIXELS / 1e6} Megapixel / more than ${
    PHOTO_MAX_PIXELS / 1e6
  } megapixels`,
  unreadable: "beschädigt oder unvollständig / damaged or incomplete",
};

/** An upload refused because of one of its images: which one (1-based `index`, `name`) and why (`refusal`). */
export class PhotoRefused extends AppError {
  override name = "PhotoRefused";
  /** 1-based position of the refused image in the upload. */
  readonly index: number;
  /** The image's file name as given, or null. */
  readonly fileName: string | null;
  /** Why it was refused. */
  readonly refusal: PhotoRefusal;

  /** Refuses image `index` (`fileName`) for `refusal`. */
  constructor(index: number, fileName: string | null, refusal: PhotoRefusal) {
    super(REFUSAL_CODE[refusal], {
      field: `fotos.${index}`,
      reason: "invalid",
      names: [refusal],
      hint: `${refusal}: ${fileName ? `${fileName}: ` : ""}${REFUSAL_TEXT[refusal]}`,
    });
    this.index = index;
    this.fileName = fileName;
    this.refusal = refusal;
  }
}

/** One image to add. */
export interface PhotoUpload {
  bytes: Uint8Array;
  /** The file name as given (only to name the image in a refusal). */
  name?: string | null;
  altText?: string | null;
}

/** One variant of a photo as callers see it. */
const variantSchema = z.object({
  url: z.string().describe("Path (pages) or absolute URL (MCP) of the variant; cache it forever."),
  format: z.enum(["webp", "jpeg"]),
  breite: z.number().int().describe("Width in pixels."),
  hoehe: z.number().int().describe("Height in pixels."),
  bytes: z.number().int(),
});

/** One photo as callers see it. */
export const photoSchema = z.object({
  foto_id: z.string().describe("Photo id (UUID)."),
  position: z.number().int().describe("0 is the title image."),
  titelbild: z.boolean(),
  alt_text: z.string().nullable(),
  breite: z.number().int().describe("Width of the largest variant."),
  hoehe: z.number().int().describe("Height of the largest variant."),
  varianten: z.array(variantSchema).describe("WebP by width (srcset), then one JPEG for mails and previews."),
});

/** One photo as callers see it. */
export type PhotoView = z.infer<typeof photoSchema>;

/** The view of a stored photo (URLs are paths; {@linkcode absolutePhotoUrls} makes them absolute). */
function photoView(p: PhotoRow): PhotoView {
  return {
    foto_id: p.id,
    position: p.position,
    titelbild: p.position === 0,
    alt_text: p.alt_text,
    breite: p.width,
    hoehe: p.height,
    varianten: p.variants.map((v) => ({
      url: variantPath(v),
      format: v.mime === "image/webp" ? "webp" : "jpeg",
      breite: v.width,
      hoehe: v.height,
      bytes: v.size_bytes,
    })),
  };
}

/** `photos` with absolute variant URLs under `baseUrl` (for MCP answers, read outside the service's pages). */
export function absolutePhotoUrls(photos: PhotoView[], baseUrl: string): PhotoView[] {
  const base = baseUrl.replace(/\/+$/, "");
  return photos.map((p) => ({ ...p, varianten: p.varianten.map((v) => ({ ...v, url: base + v.url })) }));
}

/** The alt text trimmed (null when empty); `invalid_request` when too long or with control characters. */
function altTextOf(raw: string | null | undefined): string | null {
  const t = raw?.trim() ?? "";
  if (t === "") return null;
  // deno-lint-ignore no-control-regex
  if (t.length > ALT_TEXT_MAX || /[\u0000-\u001f\u007f]/.test(t) || !t.isWellFormed()) {
    throw new AppError("invalid_request", {
      field: "alt_text",
      reason: "control_character",
      hint: `1–${ALT_TEXT_MAX} characters`,
    });
  }
  return t;
}

/** A derived image ready to store, with its alt text. */
export interface ReadyPhoto {
  derived: DerivedPhoto;
  altText: string | null;
}

/**
 * Checks and derives every upload in order, before the action that stores them (deriving takes time no
 * transaction should wait for): `invalid_request` for no image or more than {@linkcode PHOTOS_PER_UPLOAD_MAX} or a
 * bad alt text; the first refused image throws {@linkcode PhotoRefused}. Writes nothing.
 */
export async function preparePhotos(uploads: PhotoUpload[]): Promise<ReadyPhoto[]> {
  if (uploads.length === 0) throw new AppError("invalid_request", { field: "fotos", reason: "empty" });
  if (uploads.length > PHOTOS_PER_UPLOAD_MAX) {
    throw new AppError("invalid_request", {
      field: "fotos",
      reason: "too_many",
      limit: PHOTOS_PER_UPLOAD_MAX,
    });
  }
  const ready: ReadyPhoto[] = [];
  for (const [i, u] of uploads.entries()) {
    const altText = altTextOf(u.altText);
    const r = await derivePhoto(u.bytes);
    if (!r.ok) throw new PhotoRefused(i + 1, u.name ?? null, r.refusal);
    ready.push({ derived: r.photo, altText });
  }
  return ready;
}

/** What an upload did: the listing's photos afterwards, and how many of the upload were new. */
export interface AddedPhotos {
  photos: PhotoView[];
  added: number;
  /** Uploads whose bytes the listing already had (stored once). */
  duplicates: number;
}

/**
 * Adds the prepared photos ({@linkcode preparePhotos}) to the acting office's listing `listingId` (all or nothing,
 * see the module rules). Throws `not_found` or `conflict` (the listing would have more than
 * {@linkcode PHOTOS_PER_LISTING_MAX}).
 */
export async function addPhotos(a: Action, listingId: string, ready: ReadyPhoto[]): Promise<AddedPhotos> {
  const officeId = actingOffice(a);
  const id = idOrNotFound(listingId);
  if (!(await lockPhotoListing(a.tx, officeId, id))) throw new AppError("not_found");
  const { added, duplicates } = await storePhotosIn(a.tx, officeId, id, ready, a.now);
  return { photos: (await listPhotoRows(a.tx, id)).map(photoView), added, duplicates };
}

/**
 * Appends `ready` to listing `listingId` in transaction `tx` (the caller holds the listing's lock), skipping
 * images the listing already has; `conflict` beyond {@linkcode PHOTOS_PER_LISTING_MAX}. Answers the photo id of
 * each of `ready` (the stored one for a duplicate) and how many were new.
 */
async function storePhotosIn(
  tx: Kysely<Database>,
  officeId: string,
  listingId: string,
  ready: ReadyPhoto[],
  now: Date,
): Promise<{ ids: string[]; added: number; duplicates: number }> {
  const have = await photoSourceHashes(tx, listingId);
  const before = have.size;
  const fresh = new Set(ready.map((r) => r.derived.source.sha256).filter((h) => !have.has(h)));
  if (before + fresh.size > PHOTOS_PER_LISTING_MAX) {
    throw new AppError("conflict", { field: "fotos", reason: "too_many", limit: PHOTOS_PER_LISTING_MAX });
  }
  const ids: string[] = [];
  for (const r of ready) {
    const { source, variants } = r.derived;
    const stored = have.get(source.sha256);
    if (stored) {
      ids.push(stored);
      continue;
    }
    const largest = variants.filter((v) => v.mime === "image/webp").at(-1)!;
    const id = await insertPhoto(tx, {
      listingId,
      officeId,
      position: have.size,
      altText: r.altText,
      sourceType: source.type,
      sourceBytes: source.sizeBytes,
      sourceSha256: source.sha256,
      width: largest.width,
      height: largest.height,
      at: now,
      variants: variants.map((v) => ({ ...v, size_bytes: v.bytes.length })),
    });
    have.set(source.sha256, id);
    ids.push(id);
  }
  return { ids, added: have.size - before, duplicates: ready.length - (have.size - before) };
}

/**
 * Makes the acting office's listing `listingId`'s photos exactly `ready`, in that order, with their alt texts (the
 * OpenImmo import: the file describes the whole object). Photos made from the same upload are kept (their
 * addresses stay), the others deleted. The action already holds the listing. Answers whether anything changed.
 */
export async function replacePhotos(a: Action, listingId: string, ready: ReadyPhoto[]): Promise<boolean> {
  const tx = a.tx;
  const state = async () =>
    JSON.stringify((await listPhotoRows(tx, listingId)).map((p) => [p.id, p.alt_text]));
  const before = await state();
  const have = await photoSourceHashes(tx, listingId);
  const wanted = new Set(ready.map((r) => r.derived.source.sha256));
  await deletePhotoRows(tx, [...have].filter(([hash]) => !wanted.has(hash)).map(([, id]) => id));
  const kept = ready.filter((r) => have.has(r.derived.source.sha256));
  // The kept photos take positions 0 … k-1, so the new ones are appended after them without a collision.
  await setPhotoPositions(tx, listingId, [...new Set(kept.map((r) => have.get(r.derived.source.sha256)!))]);
  for (const r of kept) await setPhotoAltText(tx, have.get(r.derived.source.sha256)!, r.altText);
  const { ids } = await storePhotosIn(tx, actingOffice(a), listingId, ready, a.now);
  await setPhotoPositions(tx, listingId, [...new Set(ids)]);
  return (await state()) !== before;
}

/** The photos of the office's listing `listingId` (any status), in order. */
export async function listingPhotos(
  deps: Pick<AppDeps, "db">,
  officeId: string,
  listingId: string,
): Promise<PhotoView[]> {
  const id = idOrNotFound(listingId);
  if (!(await isOfficeListing(deps.db.kysely, officeId, id))) throw new AppError("not_found");
  return (await listPhotoRows(deps.db.kysely, id)).map(photoView);
}

/**
 * The photos of the published listings among `listingIds`, by listing id, in order (`titleOnly`: only each
 * one's title image, for result cards). Listings without photos, or not published, are absent.
 */
export async function publishedPhotos(
  deps: Pick<AppDeps, "db">,
  listingIds: string[],
  opts: { titleOnly?: boolean } = {},
): Promise<Map<string, PhotoView[]>> {
  const ids = listingIds.filter(isUuid).map((id) => id.toLowerCase());
  const rows = await publishedPhotoRows(deps.db.kysely, ids, opts.titleOnly ?? false);
  const out = new Map<string, PhotoView[]>();
  for (const r of rows) out.set(r.listing_id, [...out.get(r.listing_id) ?? [], photoView(r)]);
  return out;
}

/** What to change on a photo: its alt text (empty or null clears it), its position (0 makes it the title image). */
export interface PhotoChange {
  altText?: string | null;
  position?: number;
}

/**
 * Changes the office's photo `photoId` and answers the listing's photos in order. A position beyond the last
 * moves it to the end. Throws `not_found` or `invalid_request`.
 */
export async function updatePhoto(a: Action, photoId: string, change: PhotoChange): Promise<PhotoView[]> {
  const altText = change.altText === undefined ? undefined : altTextOf(change.altText);
  if (change.position !== undefined && (!Number.isInteger(change.position) || change.position < 0)) {
    throw new AppError("invalid_request", {
      field: "position",
      reason: "out_of_range",
      hint: "a whole number from 0",
    });
  }
  return await inPhotoListing(a, photoId, async (tx, listingId, photos) => {
    if (altText !== undefined) await setPhotoAltText(tx, photoId, altText);
    if (change.position !== undefined) {
      const order = photos.map((p) => p.id).filter((id) => id !== photoId);
      order.splice(Math.min(change.position, order.length), 0, photoId);
      await setPhotoPositions(tx, listingId, order);
    }
  });
}

/** Deletes the office's photo `photoId` (the next one becomes the title image when it was); answers the rest. */
export async function deletePhoto(a: Action, photoId: string): Promise<PhotoView[]> {
  return await inPhotoListing(a, photoId, async (tx, listingId, photos) => {
    await deletePhotoRows(tx, [photoId]);
    await setPhotoPositions(tx, listingId, photos.map((p) => p.id).filter((id) => id !== photoId));
  });
}

/**
 * Sets the order of the office's listing's photos: `photoIds` must name each of its photos once (else
 * `invalid_request`); the first becomes the title image. Answers the photos in the new order.
 */
export async function reorderPhotos(a: Action, listingId: string, photoIds: string[]): Promise<PhotoView[]> {
  const id = idOrNotFound(listingId);
  const wanted = photoIds.map((p) => p.toLowerCase());
  if (!(await lockPhotoListing(a.tx, actingOffice(a), id))) throw new AppError("not_found");
  const have = (await listPhotoRows(a.tx, id)).map((p) => p.id);
  const same = wanted.length === have.length && new Set(wanted).size === wanted.length &&
    wanted.every((w) => have.includes(w));
  if (!same) throw new AppError("invalid_request", { field: "foto_ids", reason: "not_every_photo_once" });
  await setPhotoPositions(a.tx, id, wanted);
  return (await listPhotoRows(a.tx, id)).map(photoView);
}

/** Runs `change` on photo `photoId`'s listing under its lock, then answers the listing's photos. */
async function inPhotoListing(
  a: Action,
  photoId: string,
  change: (tx: Kysely<Database>, listingId: string, photos: PhotoRow[]) => Promise<void>,
): Promise<PhotoView[]> {
  const pid = idOrNotFound(photoId);
  const officeId = actingOffice(a);
  const listingId = await photoListingOf(a.tx, officeId, pid);
  if (!listingId || !(await lockPhotoListing(a.tx, officeId, listingId))) throw new AppError("not_found");
  const photos = await listPhotoRows(a.tx, listingId);
  if (!photos.some((p) => p.id === pid)) throw new AppError("not_found");
  await change(a.tx, listingId, photos);
  return (await listPhotoRows(a.tx, listingId)).map(photoView);
}
