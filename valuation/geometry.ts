/**
 * Zone geometry: polygons and multipolygons with holes, an exact point-in-polygon test and WKT parsing. The
 * conversion of ETRS89/UTM coordinates to WGS84 is `reproject.ts` (only imports need it, and it loads proj4).
 *
 * Positions are `[x, y]` pairs in GeoJSON order: `[lng, lat]` in WGS84, `[easting, northing]` in UTM.
 *
 * Point-in-polygon semantics: a polygon is a CLOSED set. A point exactly on an edge or a vertex of the outer ring
 * counts as inside, and so does a point exactly on the edge or vertex of a hole (a hole's ring is part of the
 * polygon's boundary); only points strictly inside a hole are outside. A multipolygon contains a point when any
 * of its polygons does. The test is exact for the stored double coordinates: it uses an orientation predicate
 * that falls back to exact integer arithmetic when the floating-point result is too close to zero to trust, so
 * points on horizontal, vertical and slanted edges are classified consistently.
 */
import { AppError } from "../errors.ts";

export type { MultiPolygonGeometry, PolygonGeometry, Position, Ring, ZoneGeometry } from "../db/brw_zones.ts";
import type { Position, Ring, ZoneGeometry } from "../db/brw_zones.ts";

/** An axis-aligned bounding box in the geometry's coordinates. */
export interface BBox {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export { type Crs, parseCrs, SUPPORTED_CRS } from "./crs.ts";

// ---------------------------------------------------------------------------------------------------------------
// Exact orientation

/** Shewchuk's error bound for the first, floating-point stage of orient2d: (3 + 16ε)ε with ε = 2⁻⁵³. */
const CCW_ERR_BOUND_A = (3 + 16 * 2 ** -53) * 2 ** -53;

/**
 * The orientation of `c` relative to the directed line a→b: positive when c lies to the left, negative to the
 * right, exactly zero when the three points are collinear. The sign is exact for any finite doubles.
 */
export function orient2d(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const detLeft = (ax - cx) * (by - cy);
  const detRight = (ay - cy) * (bx - cx);
  const det = detLeft - detRight;
  let detSum: number;
  if (detLeft > 0) {
    if (detRight <= 0) return det;
    detSum = detLeft + detRight;
  } else if (detLeft < 0) {
    if (detRight >= 0) return det;
    detSum = -detLeft - detRight;
  } else {
    return det;
  }
  if (Math.abs(det) >= CCW_ERR_BOUND_A * detSum) return det;
  return exactOrient(ax, ay, bx, by, cx, cy);
}

/** `x` as `m · 2^e` with an integer mantissa (exact for every finite double). */
function decompose(x: number): { m: bigint; e: number } {
  if (x === 0) return { m: 0n, e: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const expBits = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = -1074;
  if (expBits !== 0) {
    m |= 1n << 52n;
    e = expBits - 1075;
  }
  return { m: hi >>> 31 ? -m : m, e };
}

function exactOrient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const parts = [ax, ay, bx, by, cx, cy].map(decompose);
  const eMin = Math.min(...parts.filter((p) => p.m !== 0n).map((p) => p.e));
  const [AX, AY, BX, BY, CX, CY] = parts.map((p) => p.m << BigInt(p.m === 0n ? 0 : p.e - eMin)) as [
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  const det = (AX - CX) * (BY - CY) - (AY - CY) * (BX - CX);
  return det > 0n ? 1 : det < 0n ? -1 : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Point in polygon

/** Where a point lies relative to a ring. */
type RingSide = "inside" | "boundary" | "outside";

/** Crossing-number test with an exact boundary check; the ring may or may not repeat its first position. */
function ringSide(ring: Ring, x: number, y: number): RingSide {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [ax, ay] = ring[j]!;
    const [bx, by] = ring[i]!;
    if (onSegment(ax, ay, bx, by, x, y)) return "boundary";
    // Half-open rule: an edge counts when exactly one end lies above the point; horizontal edges never count.
    if ((ay > y) !== (by > y)) {
      const o = orient2d(ax, ay, bx, by, x, y);
      if ((o > 0) === (by > ay)) inside = !inside;
    }
  }
  return inside ? "inside" : "outside";
}

function onSegment(ax: number, ay: number, bx: number, by: number, x: number, y: number): boolean {
  if (x < Math.min(ax, bx) || x > Math.max(ax, bx) || y < Math.min(ay, by) || y > Math.max(ay, by)) {
    return false;
  }
  return orient2d(ax, ay, bx, by, x, y) === 0;
}

function polygonContains(rings: Ring[], x: number, y: number): boolean {
  const [outer, ...holes] = rings;
  if (!outer) return false;
  const side = ringSide(outer, x, y);
  if (side !== "inside") return side === "boundary";
  for (const hole of holes) {
    const h = ringSide(hole, x, y);
    if (h === "boundary") return true;
    if (h === "inside") return false;
  }
  return true;
}

/** Whether the closed polygon or multipolygon `g` contains the point (x, y); edges, vertices and hole rings count as inside. */
export function containsPoint(g: ZoneGeometry, x: number, y: number): boolean {
  if (g.type === "Polygon") return polygonContains(g.coordinates, x, y);
  return g.coordinates.some((p) => polygonContains(p, x, y));
}

/** The bounding box of the outer rings of `g` (holes lie inside them). */
export function bboxOf(g: ZoneGeometry): BBox {
  const box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  const polygons = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
  for (const [outer] of polygons) {
    for (const [x, y] of outer ?? []) {
      if (x < box.minX) box.minX = x;
      if (x > box.maxX) box.maxX = x;
      if (y < box.minY) box.minY = y;
      if (y > box.maxY) box.maxY = y;
    }
  }
  return box;
}

/** A copy of `g` with every position replaced by `f(position)`. */
export function mapPositions(g: ZoneGeometry, f: (p: Position) => Position): ZoneGeometry {
  const ring = (r: Ring) => r.map(f);
  return g.type === "Polygon"
    ? { type: "Polygon", coordinates: g.coordinates.map(ring) }
    : { type: "MultiPolygon", coordinates: g.coordinates.map((p) => p.map(ring)) };
}

// ---------------------------------------------------------------------------------------------------------------
// Validation of GeoJSON-shaped input

function invalid(reason: string): AppError {
  return new AppError("invalid_request", { field: "geometry", reason: "invalid", hint: reason });
}

function toPosition(v: unknown): Position {
  if (!Array.isArray(v) || v.length < 2) throw invalid("a position is not an array of two numbers");
  const [x, y] = v;
  if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y)) {
    throw invalid("a coordinate is not a finite number");
  }
  return [x, y];
}

/** A ring with at least three distinct corners, closed (the first position is appended when missing). */
function toRing(v: unknown): Ring {
  if (!Array.isArray(v)) throw invalid("a ring is not an array of positions");
  const ring = v.map(toPosition);
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) ring.push([first[0], first[1]]);
  if (ring.length < 4) throw invalid("a ring has fewer than three corners");
  return ring;
}

function toPolygon(v: unknown): Ring[] {
  if (!Array.isArray(v) || v.length === 0) throw invalid("a polygon has no rings");
  return v.map(toRing);
}

/** Checks a GeoJSON-shaped Polygon or MultiPolygon and returns it with every ring closed; throws AppError otherwise. */
export function toZoneGeometry(v: unknown): ZoneGeometry {
  if (typeof v !== "object" || v === null) throw invalid("geometry is missing");
  const { type, coordinates } = v as { type?: unknown; coordinates?: unknown };
  if (type === "Polygon") return { type, coordinates: toPolygon(coordinates) };
  if (type === "MultiPolygon") {
    if (!Array.isArray(coordinates) || coordinates.length === 0) {
      throw invalid("a multipolygon has no polygons");
    }
    return { type, coordinates: coordinates.map(toPolygon) };
  }
  throw invalid(`geometry type ${JSON.stringify(type)} is not Polygon or MultiPolygon`);
}

// ---------------------------------------------------------------------------------------------------------------
// WKT

type Nested = number[] | Nested[];

/** Parses WKT or EWKT `POLYGON` / `MULTIPOLYGON` (optional `SRID=n;` prefix, Z/M ordinates ignored); throws AppError. */
export function parseWkt(text: string): ZoneGeometry {
  const m = /^\s*(?:SRID=\d+\s*;\s*)?(MULTIPOLYGON|POLYGON)\s*(ZM|Z|M)?\s*/i.exec(text);
  if (!m) throw invalid("geometry is not WKT POLYGON or MULTIPOLYGON");
  const type = m[1]!.toUpperCase() === "POLYGON" ? "Polygon" : "MultiPolygon";
  const body = text.slice(m[0].length).trim();
  if (/^EMPTY$/i.test(body)) throw invalid("geometry is EMPTY");
  const tokens = body.match(/\(|\)|,|[^\s(),]+/g) ?? [];
  const state = { tokens, i: 0 };
  const tree = readList(state);
  if (state.i !== tokens.length) throw invalid("unexpected text after the WKT geometry");
  return toZoneGeometry({ type, coordinates: toCoordinates(tree, type === "Polygon" ? 3 : 4) });
}

function readList(s: { tokens: string[]; i: number }): Nested {
  if (s.tokens[s.i] !== "(") throw invalid("WKT: '(' expected");
  s.i++;
  const items: Nested = [];
  for (;;) {
    if (s.tokens[s.i] === "(") (items as Nested[]).push(readList(s));
    else (items as Nested[]).push(readNumbers(s));
    const t = s.tokens[s.i++];
    if (t === undefined) throw invalid("WKT ends before the geometry is closed");
    if (t === ")") return items;
    if (t !== ",") throw invalid("WKT: ',' or ')' expected");
  }
}

function readNumbers(s: { tokens: string[]; i: number }): number[] {
  const out: number[] = [];
  while (s.i < s.tokens.length && !["(", ")", ","].includes(s.tokens[s.i]!)) {
    const n = Number(s.tokens[s.i++]);
    if (!Number.isFinite(n)) throw invalid(`WKT: ${JSON.stringify(s.tokens[s.i - 1])} is not a number`);
    out.push(n);
  }
  if (s.i >= s.tokens.length) throw invalid("WKT ends before the geometry is closed");
  if (out.length < 2 || out.length > 4) throw invalid("WKT: a position needs two to four numbers");
  return out;
}

/** Checks the nesting depth (3 = polygon, 4 = multipolygon) and drops Z/M ordinates. */
function toCoordinates(tree: Nested, depth: number): unknown {
  if (depth === 1) {
    if (!tree.every((v) => typeof v === "number")) {
      throw invalid("WKT: nesting does not match the geometry type");
    }
    return (tree as number[]).slice(0, 2);
  }
  if (tree.some((v) => typeof v === "number")) throw invalid("WKT: nesting does not match the geometry type");
  return (tree as Nested[]).map((t) => toCoordinates(t, depth - 1));
}
