/**
 * Features of a zipped shapefile such as NRW's open-data download `BRW_<year>_EPSG25832_Shape.zip` (parts
 * `BRW_<year>_Polygon.shp/.dbf/.prj/.cpg`, VBORIS short names in the dBase table). The ZIP is streamed through
 * `fflate`'s `Unzip` into a temporary folder (only `.shp`, `.dbf`, `.prj` and `.cpg` parts), then read record by
 * record with the `shapefile` package: memory holds one record. The polygon part is the only `.shp`, or the one
 * named `*_Polygon.shp`. The `.cpg` names the dBase encoding (default Windows-1252), the `.prj` the CRS; without
 * a `.prj` the file name's `EPSG25832`/`EPSG25833` counts, else `--crs`.
 *
 * Cut-off files fail: a ZIP without its end record, a `.shp` shorter than its header says, a `.dbf` with fewer
 * records than its header counts, or the two parts holding different numbers of records.
 */
import { basename, join } from "node:path";
import { Unzip, UnzipInflate } from "fflate";
import * as shapefile from "shapefile";
import { crsOfPrj, type CrsRef, crsRef } from "../crs.ts";
import { fail } from "../brw_errors.ts";
import { type Attributes, setAttribute, type SourceFeature, type SourceGeometry } from "./feature.ts";

const PARTS = /\.(shp|dbf|prj|cpg)$/i;

/** Streams the records of the polygon shapefile in the ZIP at `path` as features. */
export async function* readShapeZipFeatures(
  path: string,
  progress?: (done: number, total: number) => void,
): AsyncGenerator<SourceFeature> {
  await checkZipEnd(path);
  const dir = await Deno.makeTempDir({ prefix: "brw-shape-" });
  try {
    const names = await extractParts(path, dir);
    const shp = polygonPart(names);
    const base = shp.slice(0, -4);
    const part = (ext: string) => names.find((n) => n.toLowerCase() === `${base}.${ext}`.toLowerCase());
    const dbf = part("dbf");
    if (!dbf) fail({ code: "missing_part", part: `${basename(base)}.dbf` });
    const crs = await partCrs(dir, part("prj"), basename(path));
    const encoding = await dbfEncoding(dir, part("cpg"));
    const records = await checkParts(join(dir, shp), join(dir, dbf));
    yield* readRecords(join(dir, shp), join(dir, dbf), { encoding, crs, records, progress });
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A ZIP ends with its end-of-central-directory record; a cut-off download does not. */
async function checkZipEnd(path: string): Promise<void> {
  const size = (await Deno.stat(path)).size;
  const tail = Math.min(size, 65_557);
  const buf = await readBytes(path, tail, size - tail);
  for (let i = buf.length - 22; i >= 0; i--) {
    if (buf[i] === 0x50 && buf[i + 1] === 0x4b && buf[i + 2] === 0x05 && buf[i + 3] === 0x06) return;
  }
  fail({ code: "truncated" });
}

/** Up to `n` bytes of the file at `path` from byte `from` on (fewer where the file ends). */
export async function readBytes(path: string, n: number, from = 0): Promise<Uint8Array> {
  const file = await Deno.open(path);
  try {
    if (from > 0) await file.seek(from, Deno.SeekMode.Start);
    const buf = new Uint8Array(n);
    let read = 0;
    while (read < n) {
      const got = await file.read(buf.subarray(read));
      if (got === null) break;
      read += got;
    }
    return buf.subarray(0, read);
  } finally {
    file.close();
  }
}

/** Streams the ZIP, writing its shapefile parts into `dir` (flat); returns their names. */
async function extractParts(path: string, dir: string): Promise<string[]> {
  const names: string[] = [];
  const open: Deno.FsFile[] = [];
  let failure: Error | undefined;
  const unzip = new Unzip((entry) => {
    const name = basename(entry.name);
    if (!PARTS.test(name) || names.includes(name)) return;
    names.push(name);
    const out = Deno.openSync(join(dir, name), { write: true, create: true, truncate: true });
    open.push(out);
    entry.ondata = (err, data, final) => {
      if (err) failure ??= err;
      else writeAll(out, data);
      if (final || err) out.close();
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  const file = await Deno.open(path);
  try {
    for await (const chunk of file.readable) {
      unzip.push(chunk);
      if (failure) break;
    }
    if (!failure) unzip.push(new Uint8Array(0), true);
  } catch (e) {
    failure = e as Error;
  } finally {
    for (const f of open) {
      try {
        f.close();
      } catch { /* closed when its entry ended */ }
    }
  }
  if (failure) {
    fail(
      /EOF|end/i.test(failure.message)
        ? { code: "truncated" }
        : { code: "malformed", detail: failure.message },
    );
  }
  return names;
}

function writeAll(out: Deno.FsFile, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += out.writeSync(data.subarray(done));
}

function polygonPart(names: string[]): string {
  const shps = names.filter((n) => /\.shp$/i.test(n));
  if (shps.length === 1) return shps[0]!;
  const polygon = shps.filter((n) => /_polygon\.shp$/i.test(n));
  if (polygon.length === 1) return polygon[0]!;
  return fail({ code: "missing_part", part: shps.length === 0 ? "a .shp" : "one *_Polygon.shp" });
}

async function partCrs(dir: string, prj: string | undefined, zipName: string): Promise<CrsRef | undefined> {
  if (prj) {
    const wkt = await Deno.readTextFile(join(dir, prj));
    const crs = crsOfPrj(wkt);
    if (!crs) fail({ code: "unsupported_crs", crs: wkt.slice(0, 120) });
    return crs;
  }
  const code = /EPSG_?(25832|25833|4326)/i.exec(zipName)?.[1];
  return code ? crsRef(`EPSG:${code}`) : undefined;
}

async function dbfEncoding(dir: string, cpg: string | undefined): Promise<string> {
  const label = cpg ? (await Deno.readTextFile(join(dir, cpg))).trim() : "";
  const normalised = /^\d+$/.test(label) ? `windows-${label}` : label.replace(/^ANSI\s*/i, "windows-");
  try {
    return new TextDecoder(normalised || "windows-1252").encoding;
  } catch {
    return fail({ code: "bad_encoding", encoding: label });
  }
}

/** Compares the parts' sizes with their headers; returns the dBase record count. */
async function checkParts(shp: string, dbf: string): Promise<number> {
  const head = async (p: string, n: number) => {
    const f = await Deno.open(p);
    try {
      const b = new Uint8Array(n);
      const got = await f.read(b);
      return { view: new DataView(b.buffer), got: got ?? 0, size: (await f.stat()).size };
    } finally {
      f.close();
    }
  };
  const s = await head(shp, 100);
  if (s.got < 100 || s.view.getInt32(0, false) !== 9994) {
    fail({ code: "malformed", detail: "the .shp has no shapefile header" });
  }
  if (s.view.getInt32(24, false) * 2 > s.size) fail({ code: "truncated" });
  const d = await head(dbf, 32);
  if (d.got < 32) fail({ code: "truncated" });
  const records = d.view.getUint32(4, true);
  if (d.view.getUint16(8, true) + records * d.view.getUint16(10, true) > d.size) fail({ code: "truncated" });
  return records;
}

async function* readRecords(
  shp: string,
  dbf: string,
  opts: {
    encoding: string;
    crs: CrsRef | undefined;
    records: number;
    progress: ((done: number, total: number) => void) | undefined;
  },
): AsyncGenerator<SourceFeature> {
  const source = await shapefile.open(shp, dbf, { encoding: opts.encoding });
  let index = 0;
  for (;;) {
    const r = await source.read();
    if (r.done) break;
    const attributes: Attributes = new Map();
    for (const [k, v] of Object.entries(r.value.properties ?? {})) setAttribute(attributes, k, v as string);
    yield { index, attributes, geometry: geometryOf(r.value.geometry, opts.crs) };
    index++;
    opts.progress?.(index, opts.records);
  }
  if (index !== opts.records) fail({ code: "part_mismatch", shapes: index, records: opts.records });
}

function geometryOf(
  g: { type: string; coordinates: unknown } | null,
  crs: CrsRef | undefined,
): SourceGeometry | undefined {
  if (!g || (g.type !== "Polygon" && g.type !== "MultiPolygon")) return undefined;
  const polygons = (g.type === "Polygon" ? [g.coordinates] : g.coordinates) as SourceGeometry["polygons"];
  return { polygons, crs };
}
