/**
 * The one place that looks inside an uploaded image (issue 31, docs/architecture.md §15): it checks what the bytes
 * are and derives the sizes the service stores and serves. Pure: no database, no clock.
 *
 * Rules, in the order they are checked, each refusal a {@linkcode PhotoRefusal} code:
 * - `empty`: no bytes;
 * - `too_large`: more than {@linkcode PHOTO_MAX_BYTES};
 * - `unsupported_type`: the content is not JPEG, PNG or WebP, told by its first bytes (never by a name or a
 *   declared type); the decoder's reading of the header must agree;
 * - `too_many_pixels`: width × height from the header above {@linkcode PHOTO_MAX_PIXELS}, checked BEFORE any pixel
 *   is decoded (a decompression bomb is refused without being inflated);
 * - `unreadable`: the decoder refuses the file (corrupt, truncated: a decoder warning counts as a refusal).
 *
 * Accepted images are decoded, turned upright by their EXIF orientation, converted to sRGB and encoded anew
 * ({@linkcode derivePhoto}); only the decoded pixels survive, so EXIF (GPS included), XMP, IPTC, comments, ICC
 * profiles and anything appended to the image (a polyglot's ZIP, HTML or PDF part) are not in what is stored.
 *
 * The library is sharp (libvips, a Node-API addon with prebuilt packages; docs/benchmarks.md §10 compares it with
 * the WASM candidates). It is loaded on first use, so a host without it fails photo operations with `unavailable`
 * instead of failing to start.
 */
import type { Sharp, SharpOptions } from "sharp";
import { sha256Hex } from "../crypto.ts";
import { AppError } from "../errors.ts";

/** Largest accepted upload in bytes (15 MiB: a full-resolution phone or camera JPEG is 3–12 MB). */
export const PHOTO_MAX_BYTES = 15 * 1024 * 1024;
/** Largest accepted width × height, read from the header (40 megapixels: every phone and most cameras). */
export const PHOTO_MAX_PIXELS = 40_000_000;
/** The widths the service derives (srcset candidates); the largest variant is capped by {@linkcode FULL_MAX}. */
const VARIANT_WIDTHS = [320, 640, 1280] as const;
/** The longest side of the largest variant, in pixels. */
export const FULL_MAX = 2048;
/** The width of the one JPEG variant (for mails and link previews, where WebP is not shown everywhere). */
const JPEG_WIDTH = 1280;
/**
 * Encoder settings of the variants (docs/benchmarks.md §10.2): WebP quality 80 at effort 2 (2–5 % more bytes than
 * the default effort 4 for half its time); the JPEG by libjpeg-turbo with optimised Huffman tables, progressive
 * (mozjpeg made it 37 % smaller but took 4–7 times as long, for a variant only mails and link previews read).
 */
const WEBP = { quality: 80, effort: 2 } as const;
const JPEG = { quality: 82, optimiseCoding: true, progressive: true } as const;

/** An image type accepted, by content. */
export type PhotoType = "jpeg" | "png" | "webp";

/** Why an image is refused. */
export type PhotoRefusal = "empty" | "too_large" | "unsupported_type" | "too_many_pixels" | "unreadable";

/** What the header says about an accepted image. */
export interface ImageInfo {
  type: PhotoType;
  /** Width and height as stored (before the EXIF orientation is applied). */
  width: number;
  height: number;
}

/** The result of {@linkcode checkImage}: the header's facts, or why the image is refused. */
export type ImageCheck = { ok: true; info: ImageInfo } | { ok: false; refusal: PhotoRefusal };

/** The media types of the variants. */
export type VariantMime = "image/webp" | "image/jpeg";

/** One derived size: its encoded bytes and their SHA-256, which is also its address. */
export interface Variant {
  mime: VariantMime;
  width: number;
  height: number;
  bytes: Uint8Array;
  sha256: string;
}

/** An accepted image: what it was and its derived variants, smallest WebP first, the JPEG last. */
export interface DerivedPhoto {
  source: ImageInfo & { sha256: string; sizeBytes: number };
  variants: Variant[];
}

/** The result of {@linkcode derivePhoto}. */
export type PhotoResult = { ok: true; photo: DerivedPhoto } | { ok: false; refusal: PhotoRefusal };

type SharpFactory = (input?: Uint8Array, options?: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory> | undefined;

/** The sharp module, imported on first use with libvips' operation cache off (each image is used once). */
function sharpLib(): Promise<SharpFactory> {
  loaded ??= import("sharp").then((m) => {
    m.default.cache(false);
    return m.default as unknown as SharpFactory;
  }).catch((e) => {
    loaded = undefined;
    throw new AppError("unavailable", {
      reason: "image_library_unavailable",
      hint: (e as Error).message.split("\n")[0],
    });
  });
  return loaded;
}

/** The image type told by the first bytes of `b` (magic numbers), or undefined. */
export function sniffType(b: Uint8Array): PhotoType | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length >= 8 && png.every((x, i) => b[i] === x)) return "png";
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  return undefined;
}

/** Options every decoder run gets: the pixel limit again, and a warning (e.g. truncated data) is an error. */
const DECODE: SharpOptions = { limitInputPixels: PHOTO_MAX_PIXELS, failOn: "warning", sequentialRead: true };

/**
 * Checks `bytes` without decoding pixels: size, type by content, and the pixel count from the header
 * (docs/contract.md §4.13). Answers the header's facts or the refusal.
 */
export async function checkImage(bytes: Uint8Array): Promise<ImageCheck> {
  if (bytes.length === 0) return { ok: false, refusal: "empty" };
  if (bytes.length > PHOTO_MAX_BYTES) return { ok: false, refusal: "too_large" };
  const type = sniffType(bytes);
  if (type === undefined) return { ok: false, refusal: "unsupported_type" };
  const sharp = await sharpLib();
  let meta;
  try {
    meta = await sharp(bytes, { ...DECODE, limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, refusal: "unreadable" };
  }
  if (meta.format !== type || !meta.width || !meta.height) return { ok: false, refusal: "unreadable" };
  if (meta.width * meta.height > PHOTO_MAX_PIXELS) return { ok: false, refusal: "too_many_pixels" };
  return { ok: true, info: { type, width: meta.width, height: meta.height } };
}

/**
 * Checks `bytes` ({@linkcode checkImage}) and derives the variants: WebP at each of {@linkcode VARIANT_WIDTHS}
 * narrower than the image, WebP at the full size (longest side at most {@linkcode FULL_MAX}, never enlarged),
 * and one JPEG at {@linkcode JPEG_WIDTH} (or the full size when narrower). The image is decoded once, upright by
 * its EXIF orientation, in sRGB; every variant is encoded from those pixels without any metadata.
 */
export async function derivePhoto(bytes: Uint8Array): Promise<PhotoResult> {
  const checked = await checkImage(bytes);
  if (!checked.ok) return checked;
  const sharp = await sharpLib();
  let full: { data: Uint8Array; width: number; height: number; channels: 3 | 4 };
  try {
    const out = await sharp(bytes, DECODE).autoOrient()
      .resize({ width: FULL_MAX, height: FULL_MAX, fit: "inside", withoutEnlargement: true })
      .toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
    full = {
      data: out.data,
      width: out.info.width,
      height: out.info.height,
      channels: out.info.channels as 3 | 4,
    };
  } catch {
    return { ok: false, refusal: "unreadable" };
  }
  const raw = { raw: { width: full.width, height: full.height, channels: full.channels } };
  const encode = async (width: number, mime: VariantMime): Promise<Variant> => {
    let p = sharp(full.data, raw);
    if (width < full.width) p = p.resize({ width });
    p = mime === "image/webp" ? p.webp(WEBP) : p.flatten({ background: "#ffffff" }).jpeg(JPEG);
    const { data, info } = await p.toBuffer({ resolveWithObject: true });
    return { mime, width: info.width, height: info.height, bytes: data, sha256: await sha256Hex(data) };
  };
  const widths = [...VARIANT_WIDTHS.filter((w) => w < full.width), full.width];
  // Encoded side by side on libvips' threads (each from the same decoded pixels).
  const variants = await Promise.all([
    ...widths.map((w) => encode(w, "image/webp")),
    encode(Math.min(JPEG_WIDTH, full.width), "image/jpeg"),
  ]);
  const source = { ...checked.info, sha256: await sha256Hex(bytes), sizeBytes: bytes.length };
  return { ok: true, photo: { source, variants } };
}
