/**
 * Serving photo variants under content-addressed names (issue 31, docs/contract.md §2.8): `<sha256>-<width>.webp`
 * or `<sha256>-<width>.jpg`, the hash being the SHA-256 of the variant's bytes. A name is served only while a
 * photo holding that variant belongs to a published listing (or, for the workspace, to a listing of the asking
 * office): a withdrawn, reserved, draft or deleted listing's photos answer `not_found`.
 */
import { servableVariant, type VariantKey, type VariantMime } from "../db/photos.ts";
import type { AppDeps } from "../deps.ts";

/** The path prefix of photo variants. */
export const PHOTO_PATH = "/fotos";

const NAME = /^([0-9a-f]{64})-([1-9][0-9]{0,4})\.(webp|jpg)$/;

/** The variant a file name addresses, or undefined when the name is not one the service gives out. */
export function parseVariantName(name: string): VariantKey | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const mime: VariantMime = m[3] === "webp" ? "image/webp" : "image/jpeg";
  return { sha256: m[1]!, width: Number(m[2]), mime };
}

/** The path of a variant: `/fotos/<sha256>-<width>.<webp|jpg>`. */
export function variantPath(v: { sha256: string; width: number; mime: VariantMime }): string {
  return `${PHOTO_PATH}/${v.sha256}-${v.width}.${v.mime === "image/webp" ? "webp" : "jpg"}`;
}

/** Who may see a variant: everyone (published listings only), or the members of an office (its listings). */
export type PhotoAudience = { public: true } | { officeId: string };

/**
 * The bytes of variant `key` when `audience` may see it, else undefined; with `withBytes` false only whether it
 * may (the bytes are then empty), for a 304 answer.
 */
export async function photoVariant(
  deps: Pick<AppDeps, "db">,
  key: VariantKey,
  audience: PhotoAudience,
  withBytes = true,
): Promise<{ bytes: Uint8Array } | undefined> {
  const officeId = "officeId" in audience ? audience.officeId : null;
  return await servableVariant(deps.db.kysely, key, officeId, withBytes);
}
