/**
 * MCP tool of the provider server: `import_openimmo` imports an OpenImmo stock file (XML or zip, Base64) into the
 * caller's office. Thin adapter over `catalogue/openimmo_import.ts`.
 */
import { z } from "zod";
import { whoOf } from "./acting.ts";
import { importOpenImmo, type ImportSummary, importSummarySchema } from "../../catalogue/openimmo_import.ts";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../deps.ts";
import { addTool, DESTROYS, type ToolTarget } from "./define.ts";

/** Longest Base64 text accepted (the request body is limited to 512 KB anyway). */
const BASE64_MAX = 700_000;

/** The bytes of strict Base64 `text` (whitespace ignored); anything else throws `invalid_request`. */
export function decodeBase64(text: string): Uint8Array {
  const s = text.replace(/\s+/g, "");
  if (s.length === 0 || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    throw new AppError("invalid_request", { field: "inhalt", reason: "not_base64" });
  }
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

/** A short German text of an import summary. */
export function summaryText(s: ImportSummary): string {
  const lines = [
    `${s.objects} Objekte gelesen: ${s.created} angelegt, ${s.updated} geändert, ${s.unchanged} unverändert, ` +
    `${s.withdrawn} zurückgezogen, ${s.invalid.length} ungültig, ${s.photos} Fotos.`,
    ...s.invalid.map((i) =>
      `- ungültig: ${i.objektnr_extern ?? `(Objekt ${i.position} ohne Nummer)`}: ${i.reason}`
    ),
  ];
  if (s.not_published.length > 0) {
    lines.push(
      `${s.not_published.length} Objekte bleiben Entwürfe (Felder für die Veröffentlichung fehlen).`,
    );
  }
  if (s.unmapped.length > 0) {
    lines.push(`Nicht übernommene Elemente: ${s.unmapped.map((u) => u.element).join(", ")}.`);
  }
  return lines.join("\n");
}

/** Registers `import_openimmo`. */
export function registerOpenImmoTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "import_openimmo",
    title: "OpenImmo-Bestand importieren / Import OpenImmo stock",
    description:
      "Importiert eine OpenImmo-Datei (XML oder ZIP mit einer XML-Datei, als Base64 in inhalt, höchstens " +
      "etwa 380 KB) in den Bestand Ihres Büros. Objekte werden über objektnr_extern zugeordnet: neue werden als " +
      "Entwurf angelegt (mit veroeffentlichen = true veröffentlicht, wenn alle nötigen Felder da sind), " +
      "vorhandene geändert (ihr Status bleibt), aktion DELETE zieht ein Objekt zurück. Ungültige Objekte werden " +
      "mit Nummer und Grund gemeldet und übersprungen; eine kaputte Datei ändert nichts (invalid_request). " +
      "Bilder (anhang, in der ZIP oder als anhanginhalt) werden die Fotos des Objekts, TITELBILD als Titelbild; " +
      "ein ungültiges Bild macht sein Objekt ungültig. " +
      "Liefert die Zusammenfassung. / Imports an OpenImmo file (XML, or a zip holding one XML file, Base64 in " +
      "inhalt, at most about 380 KB) into your office's stock. Objects are matched by objektnr_extern: new ones " +
      "become drafts (published with veroeffentlichen = true when every needed field is present), existing ones " +
      "are updated (keeping their status), aktion DELETE withdraws one. Invalid objects are reported with their " +
      "number and reason and skipped; a broken file changes nothing (invalid_request). Images (anhang, in the " +
      "zip or as anhanginhalt) become the object's photos, TITELBILD the title image; a bad image makes its " +
      "object invalid. Returns the summary.",
    input: z.object({
      inhalt: z.string().min(1).max(BASE64_MAX).describe("The OpenImmo XML or zip file, Base64-encoded."),
      veroeffentlichen: z.boolean().optional().describe("Publish new listings that have every needed field."),
    }),
    output: importSummarySchema,
    annotations: DESTROYS,
  }, async ({ inhalt, veroeffentlichen }, principal) => {
    const summary = await importOpenImmo(deps, whoOf(principal), decodeBase64(inhalt), {
      publish: veroeffentlichen === true,
    });
    return { data: summary, text: summaryText(summary) };
  });
}
