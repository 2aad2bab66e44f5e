/** MCP tools of the provider server for documents on listings: upload_file, list_files (over documents/files.ts). */
import { z } from "zod";
import { officeOf } from "../../auth/principal.ts";
import { actAs } from "./acting.ts";
import { pageOf, pagingFields } from "../../catalogue/listing.ts";
import {
  FILE_MAX_BYTES,
  FILE_NAME_MAX,
  FILE_STATUSES,
  fileSchema,
  type FileView,
  listFiles,
  uploadFile,
} from "../../documents/files.ts";
import { FILE_SORTS } from "../../events/catalogue.ts";
import type { AppDeps } from "../../deps.ts";
import { ADDS, addTool, READ_ONLY, type ToolTarget } from "./define.ts";

const STATUS_DE: Record<FileView["status"], string> = {
  pending: "wird gelesen",
  processed: "gelesen",
  failed: "nicht lesbar",
};

/** A short German line for one file. */
function fileLine(f: FileView): string {
  const result = f.status === "failed"
    ? ` (${f.fehler})`
    : f.status === "processed"
    ? `: ${Object.entries(f.angaben).map(([k, v]) => `${k}=${v}`).join(", ") || "keine Angaben"}`
    : "";
  return `- ${f.name} [${f.sorte}, ${STATUS_DE[f.status]}]${result} (ID ${f.datei_id})` +
    (f.hinweis ? `\n  Hinweis: ${f.hinweis}` : "");
}

/** Registers the documents tools of the provider server. */
export function registerDocumentTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "upload_file",
    title: "Dokument hochladen / Upload file",
    description:
      "Lädt ein PDF (Exposé, Energieausweis oder Sonstiges) zu einem Objekt Ihres Büros hoch, als Base64 " +
      `(höchstens ${FILE_MAX_BYTES} Bytes). Der Dienst liest es danach im Hintergrund und legt die erkannten ` +
      "Angaben ab (Energieausweis: Ausweisart, Effizienzklasse, Endenergie, Energieträger, Baujahr, gültig bis; " +
      "Exposé: Zimmer, Wohnfläche, Preis); das Ergebnis zeigen get_property und list_files, das Ereignis " +
      "file.processed meldet es. Dieselbe Datei am selben Objekt wird nicht doppelt gespeichert (neu: false). " +
      "Fehler: not_found, invalid_request (Base64, Name), payload_too_large. / Uploads a PDF (brochure, energy " +
      `certificate or other) to a listing of your office as Base64 (at most ${FILE_MAX_BYTES} bytes). The ` +
      "service reads it in the background and stores the values it finds; get_property and list_files show the " +
      "result and the file.processed event announces it. The same bytes on the same listing are stored once " +
      "(neu: false). Returns the file with status pending.",
    input: z.object({
      objekt_id: z.string().max(100).describe("Listing id (UUID) of your office."),
      name: z.string().max(FILE_NAME_MAX * 4).describe(`File name (1–${FILE_NAME_MAX} characters).`),
      sorte: z.enum(FILE_SORTS).describe("What the file is: brochure (Exposé), energy_certificate or other."),
      inhalt: z.string().describe("The PDF as standard Base64."),
    }),
    output: fileSchema.extend({
      neu: z.boolean().describe("false when this listing already had the same file (then it is answered)."),
    }),
    annotations: ADDS,
  }, async (args, principal) => {
    const r = await actAs(deps, principal, (a) =>
      uploadFile(a, {
        objektId: args.objekt_id,
        name: args.name,
        sorte: args.sorte,
        inhalt: args.inhalt,
      }));
    const lead = r.neu
      ? "Datei gespeichert; sie wird jetzt gelesen."
      : "Diese Datei liegt an diesem Objekt schon vor; es wurde nichts neu gespeichert.";
    return { data: { ...r.file, neu: r.neu }, text: `${lead}\n${fileLine(r.file)}` };
  });

  addTool(server, deps, {
    name: "list_files",
    title: "Dokumente auflisten / List files",
    description:
      "Listet die Dokumente Ihres Büros, neueste zuerst: die eines Objekts (objekt_id) oder aller Objekte, " +
      "optional nur eines Status (pending, processed, failed), mit dem Ergebnis des Lesens (angaben) oder dem " +
      "Fehler (fehler). / Lists your office's files, newest first: of one listing or of all, optionally of one " +
      "status, with what was read (angaben) or why it failed (fehler). Returns {items, total, page, page_size}.",
    input: z.object({
      objekt_id: z.string().max(100).optional().describe("Only the files of this listing of your office."),
      status: z.enum(FILE_STATUSES).optional().describe("Only files of this status."),
      ...pagingFields,
    }),
    output: pageOf(fileSchema),
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const page = await listFiles(deps, officeOf(principal), {
      objektId: args.objekt_id,
      status: args.status,
      page: args.page,
      page_size: args.page_size,
    });
    const lines = page.items.map(fileLine);
    const head = page.total === 0 ? "Keine Dokumente." : `${page.total} Dokument(e), Seite ${page.page}:`;
    return { data: page, text: [head, ...lines].join("\n") };
  });
}
