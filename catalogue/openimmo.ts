/**
 * Reading an OpenImmo (1.2.x) stock file: an XML document, or a zip holding one XML document (the images its
 * `anhang` elements name are read by `openimmo_photos.ts`), decoded by its BOM or the encoding of its XML declaration (UTF-8 by default), and mapped
 * object by object (`<immobilie>`) to the stock fields of docs/contract.md §2.1. Pure: no database, no clock.
 *
 * A broken file (not XML, malformed, not OpenImmo, a bad or oversized zip, an unknown encoding) throws
 * `AppError("invalid_request", reason)`. A broken object (no `objektnr_extern`, an invalid value, an unknown
 * `objektart`) is returned with its reason; elements we do not map are listed per object.
 */
import type { ListingColumns } from "../db/listings.ts";
import { AppError } from "../errors.ts";
import { listingFieldsSchema } from "./office_listings.ts";
import { truncate } from "../text.ts";

/** Largest XML document accepted, in bytes (also the cap of the uncompressed entry of a zip). */
export const XML_BYTES_MAX = 50 * 1024 * 1024;
/** Most entries a zip may have. */
export const ZIP_ENTRIES_MAX = 10_000;
/** Longest `objektnr_extern` accepted. */
export const NUMBER_MAX = 100;

/** What to do with an object: write its fields, or withdraw its listing (`aktion aktionart="DELETE"`). */
export type ObjectAction = "upsert" | "delete";

/** One `<immobilie>` of the file, mapped. */
export interface OpenImmoObject {
  /** 1-based position of the object in the file. */
  position: number;
  /** `verwaltung_techn/objektnr_extern`, trimmed; null when missing. */
  number: string | null;
  action: ObjectAction;
  /** The mapped listing columns (null when the object is invalid or a DELETE). */
  fields: ListingColumns | null;
  /** Why the object cannot be imported; undefined when it can. */
  invalid?: string;
  /** Paths of the elements of this object that are not mapped (e.g. `ausstattung`, `geo/strasse`). */
  unmapped: string[];
  /** The parsed `<immobilie>` element (its `anhaenge` are read by `openimmo_photos.ts`). */
  node: XmlNode;
}

/** A read OpenImmo file. */
export interface OpenImmoFile {
  /** "xml", or "zip" with the name of the XML entry. */
  container: "xml" | "zip";
  /** Name of the XML entry of a zip. */
  entry?: string;
  /** The encoding the document was decoded with (lower-case label). */
  encoding: string;
  objects: OpenImmoObject[];
}

/**
 * Reads an OpenImmo file (XML or zip bytes); a broken file throws `AppError("invalid_request", reason)`. The XML
 * parser and the zip reader are loaded on the first file, not at start (docs/architecture.md §11.17).
 */
export async function readOpenImmo(bytes: Uint8Array): Promise<OpenImmoFile> {
  if (bytes.length === 0) throw broken("the file is empty");
  const zipped = isZip(bytes);
  const { name, data } = zipped ? await xmlFromZip(bytes) : { name: undefined, data: bytes };
  const { text, encoding } = decodeXml(data);
  const root = parseXml(await import("fast-xml-parser"), text);
  const objects = immobilien(root).map((node, i) => mapObject(node, i + 1));
  return { container: zipped ? "zip" : "xml", ...(name ? { entry: name } : {}), encoding, objects };
}

function broken(reason: string): AppError {
  return new AppError("invalid_request", { reason: "broken_file", hint: reason });
}

// ---- container and encoding -------------------------------------------------------------------------------

function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5) &&
    (b[3] === 4 || b[3] === 6);
}

/**
 * The one XML entry of a zip. The entry count and the declared size are checked before anything is inflated, and
 * the output buffer is the declared size, so a zip bomb that lies about its size is cut off (and then fails to
 * parse) instead of filling memory.
 */
export async function xmlFromZip(bytes: Uint8Array): Promise<{ name: string; data: Uint8Array }> {
  let entries = 0;
  const xml: string[] = [];
  let files: Record<string, Uint8Array>;
  const { unzipSync } = await import("fflate");
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        if (++entries > ZIP_ENTRIES_MAX) throw broken(`the zip has more than ${ZIP_ENTRIES_MAX} entries`);
        if (!isXmlEntry(f.name)) return false;
        xml.push(f.name);
        if (xml.length > 1) throw broken(`the zip holds more than one XML file (${xml.join(", ")})`);
        if (f.originalSize > XML_BYTES_MAX) {
          throw broken(`${f.name} is larger than ${XML_BYTES_MAX / 1024 / 1024} MB uncompressed`);
        }
        return true;
      },
    });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw broken(`not a readable zip file (${(e as Error).message})`);
  }
  const name = xml[0];
  if (name === undefined || !files[name]) throw broken("the zip holds no XML file");
  return { name, data: files[name] };
}

function isXmlEntry(name: string): boolean {
  return name.toLowerCase().endsWith(".xml") && !name.startsWith("__MACOSX/") && !name.endsWith("/");
}

/** The document's text: a BOM wins, else the XML declaration's encoding, else UTF-8 (invalid bytes refused). */
export function decodeXml(bytes: Uint8Array): { text: string; encoding: string } {
  if (bytes.length > XML_BYTES_MAX) {
    throw broken(`the XML document is larger than ${XML_BYTES_MAX / 1024 / 1024} MB`);
  }
  const bom = bomOf(bytes);
  const label = bom?.label ?? declaredEncoding(bytes) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true, ignoreBOM: false });
  } catch {
    throw broken(`unsupported encoding "${label}"`);
  }
  try {
    return { text: decoder.decode(bytes), encoding: label.toLowerCase() };
  } catch {
    throw broken(`the document is not valid ${label} (declare its encoding in the XML declaration)`);
  }
}

function bomOf(b: Uint8Array): { label: string } | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { label: "utf-8" };
  if (b[0] === 0xff && b[1] === 0xfe) return { label: "utf-16le" };
  if (b[0] === 0xfe && b[1] === 0xff) return { label: "utf-16be" };
  return undefined;
}

/** The `encoding` of an `<?xml …?>` declaration at the start, read as ASCII. */
function declaredEncoding(b: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(b.subarray(0, 300));
  const decl = /^\s*<\?xml\s[^?]*\?>/.exec(head)?.[0];
  return decl ? /\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(decl)?.[1] : undefined;
}

// ---- XML ----------------------------------------------------------------------------------------------------

/** A parsed XML element: text, or an object of attributes (`@name`), children and `#text`. */
export type XmlNode = string | { [key: string]: XmlNode | XmlNode[] };

/** The options of the OpenImmo document's parser. */
const PARSER_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
} as const;

function parseXml(
  { XMLParser, XMLValidator }: typeof import("fast-xml-parser"),
  text: string,
): Record<string, XmlNode> {
  const parser = new XMLParser(PARSER_OPTIONS);
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw broken(`malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`);
  }
  let doc: Record<string, XmlNode>;
  try {
    doc = parser.parse(text) as Record<string, XmlNode>;
  } catch (e) {
    throw broken(`malformed XML: ${(e as Error).message}`);
  }
  const roots = Object.keys(doc).filter((k) => !k.startsWith("?") && !k.startsWith("!"));
  if (roots.length !== 1 || roots[0] !== "openimmo") {
    throw broken(
      `not an OpenImmo document (root element ${roots.map((r) => `<${r}>`).join(", ") || "missing"})`,
    );
  }
  const root = doc.openimmo;
  return typeof root === "object" && !Array.isArray(root) ? root as Record<string, XmlNode> : {};
}

/** The elements of a child that may be repeated, as a list. */
export function list(x: XmlNode | XmlNode[] | undefined): XmlNode[] {
  return x === undefined ? [] : Array.isArray(x) ? x : [x];
}

function immobilien(root: Record<string, XmlNode>): XmlNode[] {
  return list(root.anbieter).flatMap((a) => typeof a === "object" ? list(a.immobilie as XmlNode) : []);
}

/** The child element `name` of `node` (the first when repeated). */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  if (node === undefined || typeof node === "string") return undefined;
  const c = node[name];
  return Array.isArray(c) ? c[0] : c;
}

/** The text content of `node`, trimmed; undefined when empty or absent. */
export function textOf(node: XmlNode | undefined): string | undefined {
  const t = typeof node === "string" ? node : node?.["#text"];
  const s = typeof t === "string" ? t.trim() : undefined;
  return s ? s : undefined;
}

/**
 * The text of an element that fills a single-line field (reference, title, city), or null: the line breaks and
 * tabs of the XML's layout, with the spaces around them, become one space. Any other control character stays,
 * so the field's rule refuses it.
 */
function lineOf(node: XmlNode | undefined): string | null {
  return textOf(node)?.replace(/[ \t]*[\t\n\v\f\r][\t\n\v\f\r ]*/g, " ") ?? null;
}

/** The attribute `name` of `node`, trimmed; undefined when absent. */
export function attr(node: XmlNode | undefined, name: string): string | undefined {
  if (node === undefined || typeof node === "string") return undefined;
  const a = node[`@${name}`];
  return typeof a === "string" ? a.trim() : undefined;
}

// ---- mapping ------------------------------------------------------------------------------------------------

/** Element paths of an `<immobilie>` that the mapping reads (everything else is listed as unmapped). */
const MAPPED = [
  "anhaenge",
  "freitexte/objekttitel",
  "freitexte/objektbeschreibung",
  "geo/ort",
  "geo/plz",
  "geo/geokoordinaten",
  "objektkategorie/objektart",
  "objektkategorie/vermarktungsart",
  "preise/kaufpreis",
  "preise/kaltmiete",
  "preise/nettokaltmiete",
  "flaechen/anzahl_zimmer",
  "flaechen/wohnflaeche",
  "flaechen/nutzflaeche",
  "flaechen/grundstuecksflaeche",
  "verwaltung_techn/objektnr_intern",
  "verwaltung_techn/objektnr_extern",
  "verwaltung_techn/aktion",
  // Read by openimmo_details.ts.
  "preise/nebenkosten",
  "preise/warmmiete",
  "preise/kaution",
  "geo/etage",
  "verwaltung_objekt/verfuegbar_ab",
  "zustand_angaben/baujahr",
  "zustand_angaben/energiepass",
];

/** `objektart` child elements and their property type; others are refused. */
export const OBJEKTART_TYPES: Record<string, ListingColumns["property_type"]> = {
  wohnung: "apartment",
  zimmer: "apartment",
  haus: "house",
  grundstueck: "land",
  buero_praxen: "commercial",
  einzelhandel: "commercial",
  gastgewerbe: "commercial",
  hallen_lager_prod: "commercial",
  land_und_forstwirtschaft: "commercial",
  freizeitimmobilie_gewerblich: "commercial",
  zinshaus_renditeobjekt: "commercial",
};

/** An invalid value of an object: its element and the reason (the object is skipped and listed with it). */
export class InvalidValue extends Error {}

/** Maps one `<immobilie>` at `position` (1-based). */
export function mapObject(node: XmlNode, position: number): OpenImmoObject {
  const unmapped = unmappedPaths(node, "");
  const vt = child(node, "verwaltung_techn");
  const number = textOf(child(vt, "objektnr_extern")) ?? null;
  const action: ObjectAction = attr(child(vt, "aktion"), "aktionart")?.toUpperCase() === "DELETE"
    ? "delete"
    : "upsert";
  const base = { position, number, action, unmapped, node };
  if (number === null) return { ...base, fields: null, invalid: "objektnr_extern is missing" };
  if (number.length > NUMBER_MAX) {
    return { ...base, fields: null, invalid: `objektnr_extern is longer than ${NUMBER_MAX} characters` };
  }
  if (action === "delete") return { ...base, fields: null };
  try {
    return { ...base, fields: validated(mapFields(node)) };
  } catch (e) {
    if (e instanceof InvalidValue) return { ...base, fields: null, invalid: e.message };
    throw e;
  }
}

function mapFields(node: XmlNode): ListingColumns {
  const geo = child(node, "geo");
  const preise = child(node, "preise");
  const flaechen = child(node, "flaechen");
  const coords = child(geo, "geokoordinaten");
  const property_type = propertyType(child(child(node, "objektkategorie"), "objektart"));
  const transaction_type = transactionType(child(child(node, "objektkategorie"), "vermarktungsart"));
  const price = transaction_type === "rent"
    ? numberIn(preise, "kaltmiete") ?? numberIn(preise, "nettokaltmiete")
    : transaction_type === "buy"
    ? numberIn(preise, "kaufpreis")
    : undefined;
  const area = property_type === "land"
    ? numberIn(flaechen, "grundstuecksflaeche") ?? numberIn(flaechen, "wohnflaeche") ??
      numberIn(flaechen, "nutzflaeche")
    : numberIn(flaechen, "wohnflaeche") ?? numberIn(flaechen, "nutzflaeche");
  return {
    reference: lineOf(child(child(node, "verwaltung_techn"), "objektnr_intern")),
    title: lineOf(child(child(node, "freitexte"), "objekttitel")),
    description: textOf(child(child(node, "freitexte"), "objektbeschreibung")) ?? null,
    city: lineOf(child(geo, "ort")),
    postal_code: textOf(child(geo, "plz")) ?? null,
    property_type,
    transaction_type,
    asked_price: round(price, 2),
    total_rooms: round(numberIn(flaechen, "anzahl_zimmer"), 1),
    square_meters: round(area, 2),
    latitude: coordinate(coords, "breitengrad"),
    longitude: coordinate(coords, "laengengrad"),
  };
}

function propertyType(objektart: XmlNode | undefined): ListingColumns["property_type"] {
  if (objektart === undefined || typeof objektart === "string") return null;
  const kinds = Object.keys(objektart).filter((k) => !k.startsWith("@") && k !== "#text");
  if (kinds.length === 0) return null;
  if (kinds.length > 1) throw new InvalidValue(`objektart: more than one kind (${kinds.join(", ")})`);
  const kind = kinds[0]!;
  const type = OBJEKTART_TYPES[kind];
  if (!type) throw new InvalidValue(`objektart: unknown or unsupported kind "${kind}"`);
  return type;
}

function transactionType(v: XmlNode | undefined): ListingColumns["transaction_type"] {
  const buy = isTrue(attr(v, "KAUF"));
  const rent = isTrue(attr(v, "MIETE_PACHT"));
  if (buy && rent) throw new InvalidValue("vermarktungsart: both KAUF and MIETE_PACHT are set");
  return buy ? "buy" : rent ? "rent" : null;
}

function isTrue(v: string | undefined): boolean {
  return v === "true" || v === "1";
}

/** The number in element `name` of `parent`; undefined when absent or empty; not a number → {@linkcode InvalidValue}. */
export function numberIn(parent: XmlNode | undefined, name: string): number | undefined {
  const t = textOf(child(parent, name));
  if (t === undefined) return undefined;
  const n = parseDecimal(t);
  if (n === undefined) throw new InvalidValue(`${name}: "${truncate(t, 40)}" is not a number`);
  return n;
}

function coordinate(coords: XmlNode | undefined, name: string): number | null {
  const t = attr(coords, name);
  if (!t) return null;
  const n = parseDecimal(t);
  if (n === undefined) {
    throw new InvalidValue(`geokoordinaten @${name}: "${truncate(t, 40)}" is not a number`);
  }
  return n;
}

function round(n: number | undefined, digits: number): number | null {
  if (n === undefined) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/**
 * A decimal written plainly ("1234.50", as xs:decimal) or the German way ("1.234,50", "1234,5", "1.234.567"): a
 * comma is the decimal mark when present (dots are then thousands separators); several dots without a comma are
 * thousands separators; one dot is a decimal point ("250.000" is 250). Undefined otherwise.
 */
export function parseDecimal(raw: string): number | undefined {
  const s = raw.replace(/[\s\u00a0]/g, "");
  let plain: string;
  if (/^[+-]?\d{1,3}(\.\d{3})+,\d+$/.test(s) || /^[+-]?\d+,\d+$/.test(s)) {
    plain = s.replaceAll(".", "").replace(",", ".");
  } else if (/^[+-]?\d{1,3}(\.\d{3}){2,}$/.test(s)) {
    plain = s.replaceAll(".", "");
  } else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)) {
    plain = s;
  } else {
    return undefined;
  }
  const n = Number(plain);
  return Number.isFinite(n) ? n : undefined;
}

/** OpenImmo element names of the stock fields, for the reasons of invalid objects. */
const ELEMENT_OF: Record<string, string> = {
  reference: "objektnr_intern",
  title: "objekttitel",
  description: "objektbeschreibung",
  city: "ort",
  postal_code: "plz",
  asked_price: "kaufpreis/kaltmiete",
  total_rooms: "anzahl_zimmer",
  square_meters: "wohnflaeche/nutzflaeche/grundstuecksflaeche",
  latitude: "geokoordinaten @breitengrad",
  longitude: "geokoordinaten @laengengrad",
};

/** The fields checked by the stock rules of docs/contract.md §2.1 (ranges, lengths, postal code); a failure is invalid. */
function validated(f: ListingColumns): ListingColumns {
  const r = listingFieldsSchema.safeParse(f);
  if (r.success) return f;
  const reasons = r.error.issues.map((i) => {
    const field = String(i.path[0] ?? "");
    return `${ELEMENT_OF[field] ?? field}: ${i.message}`;
  });
  throw new InvalidValue(reasons.join("; "));
}

/**
 * Paths below `node` that the mapping does not read: an element none of whose descendants is mapped is named
 * once (e.g. `ausstattung`), a partly mapped one is looked into (e.g. `geo/strasse`). Attributes are ignored.
 */
function unmappedPaths(node: XmlNode, prefix: string): string[] {
  if (typeof node === "string") return [];
  const out: string[] = [];
  for (const key of Object.keys(node)) {
    if (key.startsWith("@") || key === "#text") continue;
    const path = prefix ? `${prefix}/${key}` : key;
    if (MAPPED.includes(path)) continue;
    if (!MAPPED.some((m) => m.startsWith(`${path}/`))) {
      out.push(path);
      continue;
    }
    const nested = new Set(list(node[key]).flatMap((c) => unmappedPaths(c, path)));
    out.push(...nested);
  }
  return out;
}
