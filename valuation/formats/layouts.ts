/**
 * Which reader and which attribute mapping a file needs. The kind comes from the file's first bytes (a ZIP, JSON,
 * XML, else the pipe-delimited CSV); the mapping from its first feature: a WFS feature type names it
 * (`BR_BodenrichtwertZonal`, `lgv_brw_zoniert_alle`, `brw_2025_vector`, `bodenrichtwertzone`), other formats are
 * recognised by their attribute names. Text is decoded as it streams: XML in the encoding its declaration names
 * (UTF-8 by default), JSON as UTF-8, the CSV as UTF-8 or, when it is not valid UTF-8, Windows-1252.
 */
import { fail } from "../brw_errors.ts";
import { BERLIN } from "./berlin_wfs.ts";
import { BRM } from "./brm.ts";
import { readCsvFeatures } from "./csv_features.ts";
import type { SourceFeature } from "./feature.ts";
import { HAMBURG } from "./hamburg_wfs.ts";
import { type FileInfo, readJsonFeatures } from "./json_features.ts";
import type { AttributeMapping, LayoutId } from "./layout.ts";
import { readBytes, readShapeZipFeatures } from "./shape_zip.ts";
import { THUERINGEN } from "./thueringen_wfs.ts";
import { VBORIS } from "./vboris.ts";
import { readXmlFeatures } from "./xml_features.ts";

export type { FileInfo } from "./json_features.ts";
export type { LayoutId, ZoneAttributes } from "./layout.ts";

/** The kinds of file `brw:import` reads. */
export type FileKind = "zip" | "json" | "xml" | "csv";

/** The kind of the file at `path` and the text encoding to read it in. */
export async function sniff(path: string): Promise<{ kind: FileKind; encoding: string }> {
  const head = await readBytes(path, 4096);
  if (head.length === 0) fail({ code: "unknown_layout", start: "an empty file" });
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    return { kind: "zip", encoding: "" };
  }
  const text = new TextDecoder("latin1").decode(head).replace(/^\uFEFF|^ï»¿/, "").trimStart();
  if (text.startsWith("{")) return { kind: "json", encoding: "utf-8" };
  if (text.startsWith("<")) {
    const declared = /^<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(text)?.[1];
    return { kind: "xml", encoding: declared ?? "utf-8" };
  }
  return { kind: "csv", encoding: await isUtf8(path) ? "utf-8" : "windows-1252" };
}

async function isUtf8(path: string): Promise<boolean> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of (await Deno.open(path)).readable) decoder.decode(chunk, { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** Reports progress: bytes (or records) done and the total. */
export type Progress = (done: number, total: number) => void;

/** The file's text in chunks, decoded with `encoding`; a byte sequence invalid there fails as `bad_encoding`. */
export async function* decodedChunks(
  path: string,
  encoding: string,
  progress?: Progress,
): AsyncGenerator<string> {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: false });
  } catch {
    return fail({ code: "bad_encoding", encoding });
  }
  const file = await Deno.open(path);
  const total = progress ? (await file.stat()).size : 0;
  let done = 0;
  try {
    for await (const chunk of file.readable) {
      const text = decoder.decode(chunk, { stream: true });
      done += chunk.length;
      progress?.(done, total);
      yield text;
    }
    yield decoder.decode();
  } catch (e) {
    if (e instanceof TypeError) fail({ code: "bad_encoding", encoding });
    throw e;
  }
}

/** The features of the file at `path` of `kind`, one at a time; `info` receives what the file says of itself. */
export function readFeatures(
  path: string,
  file: { kind: FileKind; encoding: string },
  info: FileInfo,
  progress?: Progress,
): AsyncGenerator<SourceFeature> {
  switch (file.kind) {
    case "zip":
      return readShapeZipFeatures(path, progress);
    case "json":
      return readJsonFeatures(decodedChunks(path, file.encoding, progress), info);
    case "xml":
      return readXmlFeatures(decodedChunks(path, file.encoding, progress));
    case "csv":
      return readCsvFeatures(decodedChunks(path, file.encoding, progress));
  }
}

const TYPED: ReadonlyArray<readonly [AttributeMapping, LayoutId]> = [
  [BRM, "brm_gml"],
  [HAMBURG, "hamburg_wfs"],
  [BERLIN, "berlin_wfs"],
  [THUERINGEN, "thueringen_wfs"],
];

/** The attribute mapping for the file's first feature and the layout it makes; fails for an unknown one. */
export function chooseMapping(
  kind: FileKind,
  first: SourceFeature,
): { mapping: AttributeMapping; layout: LayoutId } {
  if (kind === "xml") {
    const typed = TYPED.find(([m]) => first.type !== undefined && m.forType(first.type));
    if (typed) return { mapping: typed[0], layout: typed[1] };
    return fail({ code: "unknown_layout", start: `WFS features of type ${first.type ?? "?"}` }, {
      feature: 0,
    });
  }
  if (kind === "zip" && VBORIS.forAttributes(first)) return { mapping: VBORIS, layout: "nrw_shape" };
  if (kind === "csv") return { mapping: VBORIS, layout: "vboris_csv" };
  const upper = [...first.attributes.values()].some((a) => a.name === "BODENRICHTWERT");
  if (upper) return { mapping: THUERINGEN, layout: "thueringen_wfs" };
  for (const [m, layout] of TYPED) {
    if (m.forAttributes(first)) return { mapping: m, layout: layout === "brm_gml" ? "brm_json" : layout };
  }
  if (VBORIS.forAttributes(first)) {
    return { mapping: VBORIS, layout: kind === "zip" ? "nrw_shape" : "vboris_geojson" };
  }
  return fail({
    code: "unknown_layout",
    start: `features with the attributes ${
      [...first.attributes.values()].map((a) => a.name).slice(0, 12).join(", ")
    }`,
  }, { feature: 0 });
}
