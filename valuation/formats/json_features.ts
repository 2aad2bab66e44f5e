/**
 * Features of a GeoJSON FeatureCollection or a saved OGC API Features items page, read with the streaming
 * parser `@streamparser/json`: each element of `features` is handed on as soon as it is complete, so memory holds
 * one feature, never the file. Nested properties become paths (`nutzung/art`; an array counts by its first
 * element). The legacy `crs` member names the CRS (read lon, lat whatever it says: RFC 7946); OGC API pages carry
 * theirs only in the HTTP header `Content-Crs`, so their CRS comes from `--crs`.
 */
import { JSONParser } from "@streamparser/json";
import { crsRef, lonLat } from "../crs.ts";
import { BrwImportError, fail } from "../brw_errors.ts";
import {
  type Attributes,
  type Scalar,
  setAttribute,
  type SourceFeature,
  type SourceGeometry,
} from "./feature.ts";

/** What a file says about itself besides its features. */
export interface FileInfo {
  /** The collection's `name`, if any. */
  name?: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Streams the features of a JSON FeatureCollection out of text chunks; fills `info` with the collection's name. */
export async function* readJsonFeatures(
  chunks: AsyncIterable<string>,
  info: FileInfo = {},
): AsyncGenerator<SourceFeature> {
  const parser = new JSONParser({ paths: ["$.type", "$.name", "$.crs", "$.features.*"], keepStack: false });
  const queue: SourceFeature[] = [];
  let error: BrwImportError | undefined;
  let type: Json | undefined;
  let crs: SourceGeometry["crs"];
  let index = 0;
  parser.onError = (e) => {
    if (e instanceof BrwImportError) {
      error ??= e;
      return;
    }
    const truncated = /ended in mid-parsing|ended in the middle|not all the data was received/i.test(
      e.message,
    );
    error ??= new BrwImportError(
      truncated ? { code: "truncated" } : { code: "malformed", detail: e.message },
      {
        feature: index,
      },
    );
  };
  parser.onValue = ({ value, key, stack }) => {
    if (stack.length === 1 && key === "type") type = value as Json;
    else if (stack.length === 1 && key === "name" && typeof value === "string") info.name = value;
    else if (stack.length === 1 && key === "crs") {
      if (index > 0) {
        error ??= new BrwImportError({ code: "malformed", detail: "the crs member follows the features" });
      }
      crs = collectionCrs(value as Json);
    } else if (stack.length === 2) queue.push(toFeature(value as Json, index++, crs));
  };
  const write = (fn: () => void) => {
    try {
      fn();
    } catch (e) {
      if (e instanceof BrwImportError) throw e;
      parser.onError(e as Error);
    }
    if (error) throw error;
  };
  for await (const chunk of chunks) {
    if (parser.isEnded) {
      if (chunk.trim() !== "") fail({ code: "malformed", detail: "text after the end of the JSON document" });
      continue;
    }
    if (chunk !== "") write(() => parser.write(chunk));
    while (queue.length > 0) yield queue.shift()!;
  }
  if (!parser.isEnded) write(() => parser.end());
  while (queue.length > 0) yield queue.shift()!;
  if (type !== "FeatureCollection") {
    fail({
      code: "unknown_layout",
      start: `JSON whose type is ${JSON.stringify(type ?? null)}, not FeatureCollection`,
    });
  }
}

function collectionCrs(member: Json): SourceGeometry["crs"] {
  const name = (member as { properties?: { name?: Json } } | null)?.properties?.name;
  if (typeof name !== "string") fail({ code: "unsupported_crs", crs: JSON.stringify(member).slice(0, 100) });
  const ref = crsRef(name);
  if (!ref) fail({ code: "unsupported_crs", crs: name });
  return lonLat(ref);
}

function toFeature(value: Json, index: number, crs: SourceGeometry["crs"]): SourceFeature {
  const f = (value ?? {}) as { id?: Json; properties?: Json; geometry?: Json };
  const attributes: Attributes = new Map();
  if (typeof f.properties === "object" && f.properties !== null) flatten(attributes, "", f.properties);
  const feature: SourceFeature = { index, attributes, geometry: geometryOf(f.geometry, index, crs) };
  if (typeof f.id === "string" || typeof f.id === "number") feature.id = String(f.id);
  return feature;
}

function flatten(out: Attributes, prefix: string, v: Json): void {
  if (Array.isArray(v)) {
    for (const item of v) flatten(out, prefix, item);
  } else if (typeof v === "object" && v !== null) {
    for (const [k, child] of Object.entries(v)) flatten(out, prefix ? `${prefix}/${k}` : k, child);
  } else if (prefix) {
    setAttribute(out, prefix, v as Scalar);
  }
}

function geometryOf(
  g: Json | undefined,
  index: number,
  crs: SourceGeometry["crs"],
): SourceGeometry | undefined {
  if (typeof g !== "object" || g === null || Array.isArray(g)) return undefined;
  const { type, coordinates } = g as { type?: Json; coordinates?: Json };
  const at = { feature: index };
  if (type !== "Polygon" && type !== "MultiPolygon") return undefined;
  const polygons = type === "Polygon" ? [coordinates] : coordinates;
  if (!Array.isArray(polygons)) fail({ code: "bad_geometry", detail: `${type} without coordinates` }, at);
  return {
    polygons: polygons.map((p) => {
      if (!Array.isArray(p)) fail({ code: "bad_geometry", detail: "a polygon is not an array of rings" }, at);
      return p.map((ring) => {
        if (!Array.isArray(ring)) {
          fail({ code: "bad_geometry", detail: "a ring is not an array of positions" }, at);
        }
        return ring.map((pos) => {
          const [x, y] = Array.isArray(pos) ? pos : [];
          if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y)) {
            fail({ code: "bad_geometry", detail: "a position is not two finite numbers" }, at);
          }
          return [x, y] as [number, number];
        });
      });
    }),
    crs,
  };
}
