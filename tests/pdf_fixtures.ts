/**
 * Test documents made in the test: PDFs written with `pdf-lib` (an energy certificate, a brochure, an image-only
 * page), a hand-written PDF whose trailer has an `/Encrypt` dictionary (pdf-lib cannot encrypt), a broken PDF, a
 * non-PDF and an empty file. Each PDF states its values in the German way real documents do.
 */
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";

/** No creation or modification dates: the same fixture is the same bytes every time. */
const FIXED = { updateMetadata: false };

/** Lines of text per page → a PDF with Helvetica (WinAnsi: umlauts, ², ·, § and € are fine). */
export async function textPdf(pages: string[][]): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create(FIXED);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    let y = 790;
    for (const line of lines) {
      page.drawText(line, { x: 50, y, size: 11, font });
      y -= 18;
    }
  }
  return new Uint8Array(await doc.save());
}

/** What the energy certificate fixture states, as the job must read it. */
export const ENERGY_CERTIFICATE_VALUES = {
  ausweisart: "bedarf",
  energieeffizienzklasse: "D",
  endenergie_kwh_m2a: 112.5,
  energietraeger: "Fernwärme",
  baujahr: 1998,
  gueltig_bis: "2034-12-31",
};

/** A two-page energy certificate for a residential building (demand based). */
export function energyCertificatePdf(): Promise<Uint8Array<ArrayBuffer>> {
  return textPdf([
    [
      "ENERGIEAUSWEIS für Wohngebäude",
      "gemäß den §§ 79 ff. Gebäudeenergiegesetz (GEG) vom 16. Oktober 2023",
      "Berechneter Energiebedarf des Gebäudes",
      "Registriernummer BY-2024-001234567",
      "Gültig bis: 31.12.2034",
      "Gebäude",
      "Gebäudetyp Mehrfamilienhaus",
      "Adresse Musterstraße 1, 80331 München",
      "Baujahr Gebäude 1998",
      "Baujahr Wärmeerzeuger 2012",
      "Anzahl der Wohnungen 6",
      "Gebäudenutzfläche (AN) 620 m²",
      "Wesentliche Energieträger für Heizung und Warmwasser: Fernwärme",
      "Art des Ausweises: Bedarfsausweis",
    ],
    [
      "Endenergiebedarf dieses Gebäudes",
      "112,5 kWh/(m²·a)",
      "Primärenergiebedarf dieses Gebäudes 68,0 kWh/(m²·a)",
      "Energieeffizienzklasse: D",
    ],
  ]);
}

/** What the brochure fixture states, as the job must read it. */
export const BROCHURE_VALUES = { zimmer: 3.5, wohnflaeche_m2: 84.5, preis_eur: 350_000 };

/** A brochure (Exposé) of a flat for sale; it mentions its energy certificate as German law requires. */
export function brochurePdf(): Promise<Uint8Array<ArrayBuffer>> {
  return textPdf([
    [
      "Exposé",
      "Helle 3,5-Zimmer-Wohnung mit Balkon in Schwabing",
      "Wohnfläche: ca. 84,5 m²",
      "Zimmer: 3,5",
      "Schlafzimmer: 2",
      "Kaufpreis: 350.000 €",
      "Quadratmeterpreis: 4.142 €/m²",
      "Energieausweis: Verbrauchsausweis, 98 kWh/(m²·a), Gas",
    ],
  ]);
}

/** One page with shapes only: no text to extract (like a scan). */
export async function imageOnlyPdf(): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create(FIXED);
  const page = doc.addPage([595, 842]);
  page.drawRectangle({ x: 50, y: 500, width: 300, height: 200, color: rgb(0.2, 0.4, 0.8) });
  page.drawEllipse({ x: 300, y: 300, xScale: 80, yScale: 40, color: rgb(0.9, 0.6, 0.1) });
  return new Uint8Array(await doc.save());
}

/** A minimal PDF whose body objects are given; `trailerExtra` is added to the trailer dictionary. */
function handWrittenPdf(objects: string[], trailerExtra: string): Uint8Array<ArrayBuffer> {
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${
    objects.length + 1
  } /Root 1 0 R ${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** Hex of `n` deterministic bytes. */
const hex = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ((i * 37 + seed) % 256).toString(16).padStart(2, "0")).join("");

/**
 * A PDF encrypted with the standard handler (RC4 40-bit) and a user password: its /U entry does not match the
 * empty password, so a reader needs a password to open it.
 */
export function encryptedPdf(): Uint8Array<ArrayBuffer> {
  const text = "BT /F1 12 Tf 50 700 Td (Energieausweis) Tj ET";
  return handWrittenPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R " +
    "/Resources << /Font << /F1 6 0 R >> >> >>",
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    `<< /Filter /Standard /V 1 /R 2 /Length 40 /O <${hex(32, 1)}> /U <${hex(32, 7)}> /P -4 >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ], `/Encrypt 5 0 R /ID [<${hex(16, 3)}> <${hex(16, 3)}>]`);
}

/** A file that starts like a PDF but has no readable structure. */
export function brokenPdf(): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(
    "%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R\nthis is not a PDF body\n",
  );
}

/** A plain-text file (no PDF header). */
export function notPdf(): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode("Dies ist keine PDF-Datei, sondern nur Text.\nWohnfläche 80 m²\n");
}

/** An empty file (0 bytes). */
export function emptyFile(): Uint8Array<ArrayBuffer> {
  return new Uint8Array(0);
}

/** Standard Base64 of `bytes`. */
export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
