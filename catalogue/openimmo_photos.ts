/**
 * Photos from OpenImmo `anhang` elements (issue 31, docs/contract.md §4.12): before the import's transaction, the
 * images of every valid object are found, checked and derived (`photos/image.ts`), so the transaction only writes.
 *
 * - Images: `anhang` of the groups in {@linkcode IMAGE_GROUPS}, or without `gruppe` when `format` names an image
 *   type. Their bytes are `daten/anhanginhalt` (Base64) or, in a zip, the entry `daten/pfad` names (beside the
 *   XML). `anhangtitel` becomes the alt text. The (first) TITELBILD is the title image, the rest follow in file
 *   order.
 * - Not imported, named in the summary's `unmapped`: other groups (documents, logos, links, films), REMOTE links
 *   (the service fetches nothing), and files of a plain XML upload (only a zip carries them).
 * - A refused image (type by content, size, pixel limit, unreadable), a file missing from the zip, bad Base64 or
 *   more than {@linkcode PHOTOS_PER_LISTING_MAX} images make the object invalid with a reason naming the `anhang`,
 *   like any other invalid data: the object is not imported.
 * - An object with images gets exactly those photos (the file describes the whole object; photos made from the
 *   same bytes keep their addresses); an object without any leaves the listing's photos as they are.
 */
import { decodeBase64 } from "../documents/files.ts";
import { ALT_TEXT_MAX, PHOTOS_PER_LISTING_MAX, type ReadyPhoto } from "../photos/photos.ts";
import { derivePhoto, PHOTO_MAX_BYTES } from "../photos/image.ts";
import {
  attr,
  child,
  list,
  type OpenImmoFile,
  type OpenImmoObject,
  textOf,
  type XmlNode,
} from "./openimmo.ts";
import { truncate } from "../text.ts";

/** `anhang` groups that hold pictures of the object. */
const IMAGE_GROUPS = [
  "TITELBILD",
  "BILD",
  "INNENANSICHTEN",
  "AUSSENANSICHTEN",
  "GRUNDRISS",
  "KARTEN_LAGEPLAN",
  "PANORAMA",
];

/** One `anhang` element as read. */
interface Attachment {
  /** 1-based position among the object's `anhang` elements. */
  index: number;
  group: string | null;
  location: string | null;
  title: string | null;
  format: string | null;
  path: string | null;
  inline: string | null;
}

function attachmentsOf(node: XmlNode): Attachment[] {
  return anhangList(node).map((a, i) => {
    const daten = child(a, "daten");
    return {
      index: i + 1,
      group: attr(a, "gruppe")?.toUpperCase() || null,
      location: attr(a, "location")?.toUpperCase() || null,
      title: textOf(child(a, "anhangtitel")) ?? null,
      format: textOf(child(a, "format"))?.toLowerCase() ?? null,
      path: textOf(child(daten, "pfad")) ?? null,
      inline: textOf(child(daten, "anhanginhalt")) ?? null,
    };
  });
}

function anhangList(node: XmlNode): XmlNode[] {
  const anhaenge = typeof node === "string" ? undefined : node.anhaenge;
  return list(anhaenge).flatMap((x) => typeof x === "string" ? [] : list(x.anhang));
}

function isImage(a: Attachment): boolean {
  if (a.group !== null) return IMAGE_GROUPS.includes(a.group);
  return a.format !== null && /^(image\/)?(jpe?g|png|webp)$/.test(a.format);
}

/** Why an attachment cannot be used, as an unmapped path, or undefined when it can. */
function skipped(a: Attachment, zipped: boolean): string | undefined {
  if (!isImage(a)) return `anhaenge/anhang (gruppe ${a.group ?? a.format ?? "?"})`;
  if (a.inline !== null) return undefined;
  if (a.location === "REMOTE" || /^[a-z][a-z0-9+.-]*:\/\//i.test(a.path ?? "")) {
    return "anhaenge/anhang (REMOTE: links are not fetched)";
  }
  if (!zipped) return "anhaenge/anhang (file not uploaded: send the zip)";
  return undefined;
}

/** An entry name as a key: without a leading `./` or `/`, backslashes as slashes. */
function entryKey(name: string): string {
  return name.replace(/\\/g, "/").replace(/^(\.\/|\/)+/, "");
}

type ZipEntry = Uint8Array | "too_large";

/** The zip entries named by `paths` (an entry larger than an image may be is not inflated). */
async function zipEntries(bytes: Uint8Array, paths: Set<string>): Promise<Map<string, ZipEntry>> {
  const found = new Map<string, ZipEntry>();
  if (paths.size === 0) return found;
  const { unzipSync } = await import("fflate");
  const files = unzipSync(bytes, {
    filter: (f) => {
      const key = entryKey(f.name);
      if (!paths.has(key)) return false;
      if (f.originalSize > PHOTO_MAX_BYTES) found.set(key, "too_large");
      return f.originalSize <= PHOTO_MAX_BYTES;
    },
  });
  for (const [name, data] of Object.entries(files)) found.set(entryKey(name), data);
  return found;
}

/** An object's invalid reason for attachment `a`. */
function reason(a: Attachment, why: string): string {
  return `anhang ${a.index}${a.path ? ` (${truncate(a.path, 80)})` : ""}: ${why}`;
}

/**
 * Reads, checks and derives the images of the file's importable objects. Returns the photos of each object that
 * has any, by its position; marks objects with a bad image invalid and adds skipped attachments to `unmapped`.
 */
export async function importPhotos(
  file: OpenImmoFile,
  bytes: Uint8Array,
): Promise<Map<number, ReadyPhoto[]>> {
  const zipped = file.container === "zip";
  const objects = file.objects.filter((o) => o.invalid === undefined && o.action === "upsert" && o.fields);
  const wanted = new Map<OpenImmoObject, Attachment[]>();
  for (const o of objects) {
    const usable: Attachment[] = [];
    for (const a of attachmentsOf(o.node)) {
      const why = skipped(a, zipped);
      if (why === undefined) usable.push(a);
      else if (!o.unmapped.includes(why)) o.unmapped.push(why);
    }
    if (usable.length > 0) wanted.set(o, usable);
  }
  const paths = new Set(
    [...wanted.values()].flat().filter((a) => a.inline === null && a.path !== null)
      .map((a) => entryKey(a.path!)),
  );
  const entries = zipped ? await zipEntries(bytes, paths) : new Map<string, ZipEntry>();
  const out = new Map<number, ReadyPhoto[]>();
  for (const [o, attachments] of wanted) {
    const ready = await objectPhotos(attachments, entries);
    if (typeof ready === "string") o.invalid = ready;
    else out.set(o.position, ready);
  }
  return out;
}

/** The derived photos of one object's image attachments (title image first), or why the object is invalid. */
async function objectPhotos(
  attachments: Attachment[],
  entries: Map<string, ZipEntry>,
): Promise<ReadyPhoto[] | string> {
  if (attachments.length > PHOTOS_PER_LISTING_MAX) {
    return `anhaenge: more than ${PHOTOS_PER_LISTING_MAX} images`;
  }
  const title = attachments.findIndex((a) => a.group === "TITELBILD");
  const ordered = title > 0
    ? [attachments[title]!, ...attachments.filter((_, i) => i !== title)]
    : attachments;
  const ready: ReadyPhoto[] = [];
  for (const a of ordered) {
    let data: ZipEntry | undefined;
    if (a.inline !== null) {
      try {
        data = decodeBase64(a.inline).bytes;
      } catch {
        return reason(a, "anhanginhalt is not valid Base64");
      }
    } else {
      if (a.path === null) return reason(a, "neither daten/pfad nor daten/anhanginhalt");
      data = entries.get(entryKey(a.path));
      if (data === undefined) return reason(a, "the file is not in the zip");
    }
    const r = data === "too_large"
      ? { ok: false as const, refusal: "too_large" as const }
      : await derivePhoto(data);
    if (!r.ok) return reason(a, r.refusal);
    // deno-lint-ignore no-control-regex
    const alt = a.title?.replace(/[\u0000-\u001f\u007f]/g, " ").trim();
    ready.push({ derived: r.photo, altText: alt ? truncate(alt, ALT_TEXT_MAX) : null });
  }
  return ready;
}
