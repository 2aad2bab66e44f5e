/**
 * MCP tools of the provider server for listing photos: upload_photo, update_photo, delete_photo (over
 * photos/photos.ts). The provider's get_property shows a listing's photos (`fotos`). URLs are absolute.
 */
import { z } from "zod";
import { actAs } from "./acting.ts";
import { decodeBase64 } from "../../documents/files.ts";
import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import {
  absolutePhotoUrls,
  addPhotos,
  ALT_TEXT_MAX,
  deletePhoto,
  PHOTOS_PER_LISTING_MAX,
  photoSchema,
  type PhotoView,
  preparePhotos,
  updatePhoto,
} from "../../photos/photos.ts";
import { PHOTO_MAX_PIXELS } from "../../photos/image.ts";
import { ADDS, addTool, DESTROYS, type ToolTarget, UPDATES } from "./define.ts";

/** Longest Base64 accepted by `upload_photo` before decoding (the 512 KB request limit holds it anyway). */
const BASE64_MAX = 512 * 1024;

const photosOutput = z.object({
  fotos: z.array(photoSchema).describe("The listing's photos in order; position 0 is the title image."),
});

/** A short German text of a listing's photos. */
export function photosText(photos: PhotoView[], lead: string): string {
  const lines = photos.map((p) =>
    `- ${p.position + 1}. ${p.titelbild ? "[Titelbild] " : ""}${p.alt_text ?? "(ohne Alternativtext)"} ` +
    `${p.breite}×${p.hoehe} (ID ${p.foto_id})`
  );
  return [lead, photos.length === 0 ? "Keine Fotos." : `${photos.length} Foto(s):`, ...lines].join("\n");
}

/** Registers the photo tools of the provider server. */
export function registerPhotoTools(server: ToolTarget, deps: AppDeps): void {
  const absolute = (photos: PhotoView[]) => absolutePhotoUrls(photos, deps.config.baseUrl);

  addTool(server, deps, {
    name: "upload_photo",
    title: "Foto hochladen / Upload photo",
    description:
      "Lädt ein Foto (JPEG, PNG oder WebP, als Base64) zu einem Objekt Ihres Büros hoch. Der Dienst prüft den " +
      `Inhalt (Dateityp am Inhalt, höchstens ${PHOTO_MAX_PIXELS / 1e6} Megapixel), entfernt alle Metadaten ` +
      "(auch GPS) und speichert verkleinerte Fassungen (WebP 320/640/1280/bis 2048 px und ein JPEG). Das erste " +
      `Foto eines Objekts ist sein Titelbild; höchstens ${PHOTOS_PER_LISTING_MAX} Fotos je Objekt. Dieselbe ` +
      "Datei am selben Objekt wird nicht doppelt gespeichert. Fotos sind öffentlich, solange das Objekt " +
      "veröffentlicht ist. Die ganze Anfrage darf 512 KB nicht überschreiten (größere Fotos über die Seiten " +
      "oder den OpenImmo-Import). Fehler: not_found, invalid_request (Base64, leer, zu viele Pixel, " +
      "beschädigt), unsupported_media_type (kein JPEG/PNG/WebP), payload_too_large, conflict (zu viele Fotos). / " +
      "Uploads a photo (JPEG, PNG or WebP, Base64) to a listing of your office. The service checks the content " +
      "(type by content, pixel limit), removes all metadata (GPS included) and stores resized versions; the " +
      "first photo is the title image. Returns the listing's photos with their URLs.",
    input: z.object({
      objekt_id: z.string().max(100).describe("Listing id (UUID) of your office."),
      inhalt: z.string().max(BASE64_MAX).describe("The image as standard Base64."),
      name: z.string().max(200).optional().describe("File name (only to name the image in an error)."),
      alt_text: z.string().max(ALT_TEXT_MAX * 4).optional().describe(
        `What the photo shows, for people who cannot see it (1–${ALT_TEXT_MAX} characters).`,
      ),
    }),
    output: photosOutput.extend({
      neu: z.boolean().describe("false when this listing already had the same image (nothing stored)."),
    }),
    annotations: ADDS,
  }, async (args, principal) => {
    const { bytes } = decodeBase64(args.inhalt);
    const ready = await preparePhotos([{ bytes, name: args.name ?? null, altText: args.alt_text ?? null }]);
    const r = await actAs(deps, principal, (a) => addPhotos(a, args.objekt_id, ready));
    const lead = r.added ? "Foto gespeichert." : "Dieses Foto liegt an diesem Objekt schon vor.";
    const fotos = absolute(r.photos);
    return { data: { fotos, neu: r.added > 0 }, text: photosText(fotos, lead) };
  });

  addTool(server, deps, {
    name: "update_photo",
    title: "Foto ändern / Update photo",
    description:
      "Ändert ein Foto Ihres Büros: alt_text (leer oder null löscht ihn) und/oder position (0 macht es zum " +
      "Titelbild; die anderen rücken nach). / Changes a photo of your office: its alt text (empty or null " +
      "clears it) and/or its position (0 makes it the title image; the others move along). Returns the " +
      "listing's photos in order.",
    input: z.object({
      foto_id: z.string().max(100).describe("Photo id (UUID)."),
      alt_text: z.string().max(ALT_TEXT_MAX * 4).nullable().optional(),
      position: z.number().int().min(0).max(1000).optional().describe("New place; 0 is the title image."),
    }),
    output: photosOutput,
    annotations: UPDATES,
  }, async (args, principal) => {
    if (args.alt_text === undefined && args.position === undefined) {
      throw new AppError("invalid_request", {
        field: "alt_text",
        reason: "missing",
        hint: "give alt_text or position",
      });
    }
    const change = {
      ...(args.alt_text !== undefined ? { altText: args.alt_text } : {}),
      ...(args.position !== undefined ? { position: args.position } : {}),
    };
    const photos = await actAs(deps, principal, (a) => updatePhoto(a, args.foto_id, change));
    const fotos = absolute(photos);
    return { data: { fotos }, text: photosText(fotos, "Foto geändert.") };
  });

  addTool(server, deps, {
    name: "delete_photo",
    title: "Foto löschen / Delete photo",
    description:
      "Löscht ein Foto Ihres Büros; seine Adressen liefern danach 404. War es das Titelbild, wird das nächste " +
      "Foto Titelbild. / Deletes a photo of your office; its URLs answer 404 afterwards. When it was the title " +
      "image, the next photo becomes the title image. Returns the listing's remaining photos.",
    input: z.object({ foto_id: z.string().max(100).describe("Photo id (UUID).") }),
    output: photosOutput,
    annotations: DESTROYS,
  }, async ({ foto_id }, principal) => {
    const fotos = absolute(await await actAs(deps, principal, (a) => deletePhoto(a, foto_id)));
    return { data: { fotos }, text: photosText(fotos, "Foto gelöscht.") };
  });
}
