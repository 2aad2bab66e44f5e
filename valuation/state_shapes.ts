/**
 * The state borders of the place data as shapes: point in state (even-odd over every ring, with horizontal bands of
 * edges so Bavaria's ~15,000 edges cost a few dozen tests) and "within so many metres of a state".
 */
import { STATE_CODES, type StateCode } from "./states.ts";

/** The shapes of the states from their encoded border polylines; small states first (their boxes are tight). */
export function stateShapes(borders: Record<string, string[]>, precision: number): StateShape[] {
  const shapes: StateShape[] = [];
  for (const state of STATE_CODES) {
    const rings = (borders[state] ?? []).map((enc) => ringShape(decodePolyline(enc, precision)));
    shapes.push({
      state,
      rings,
      minX: Math.min(...rings.map((r) => r.minX)),
      minY: Math.min(...rings.map((r) => r.minY)),
      maxX: Math.max(...rings.map((r) => r.maxX)),
      maxY: Math.max(...rings.map((r) => r.maxY)),
    });
  }
  // Neighbours share their borders exactly, so at most one state contains a point: the order only affects speed.
  // Small states first, as their bounding boxes are tight.
  shapes.sort((a, b) => (a.maxX - a.minX) * (a.maxY - a.minY) - (b.maxX - b.minX) * (b.maxY - b.minY));
  return shapes;
}

/** One ring of a state border, with bands of its edges for fast point-in-ring tests. */
interface RingShape {
  /** x = lng, y = lat, interleaved; the ring is implicitly closed. */
  xy: Float64Array;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  /** Horizontal bands over [minY, maxY]: the edges of band b are bandEdges[bandStart[b] .. bandStart[b + 1]). */
  bandHeight: number;
  bandStart: Uint32Array;
  /** Index (into xy, even) of each edge's end point; the edge runs from the previous point to it. */
  bandEdges: Uint32Array;
}

/** A state's border rings and their bounding box. */
export interface StateShape {
  state: StateCode;
  rings: RingShape[];
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** The state whose border contains the point, if any. */
export function stateAt(shapes: StateShape[], lat: number, lng: number): StateCode | undefined {
  for (const s of shapes) {
    if (lng < s.minX || lng > s.maxX || lat < s.minY || lat > s.maxY) continue;
    if (insideShape(s, lng, lat)) return s.state;
  }
  return undefined;
}

/** Even-odd rule over all rings of a state: handles multipolygons, holes and enclaves. */
function insideShape(s: StateShape, x: number, y: number): boolean {
  let inside = false;
  for (const r of s.rings) {
    if (x < r.minX || x > r.maxX || y < r.minY || y > r.maxY) continue;
    const xy = r.xy, n = xy.length, edges = r.bandEdges;
    const band = Math.min(r.bandStart.length - 2, Math.floor((y - r.minY) / r.bandHeight));
    for (let e = r.bandStart[band]!, end = r.bandStart[band + 1]!; e < end; e++) {
      const i = edges[e]!, j = i === 0 ? n - 2 : i - 2;
      const yi = xy[i + 1]!, yj = xy[j + 1]!;
      if ((yi > y) !== (yj > y)) {
        const xi = xy[i]!, xj = xy[j]!;
        if (x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
      }
    }
  }
  return inside;
}

const M_PER_DEG_LAT = 111_195;

/** True when the point lies in `state` or within `metres` of its border. */
export function nearState(
  shapes: StateShape[],
  state: StateCode,
  lat: number,
  lng: number,
  metres: number,
): boolean {
  const s = shapes.find((x) => x.state === state);
  if (!s) return false;
  if (insideShape(s, lng, lat)) return true;
  const kx = Math.cos(lat * Math.PI / 180) * M_PER_DEG_LAT, ky = M_PER_DEG_LAT;
  const dLat = metres / ky, dLng = metres / kx;
  const limit2 = metres * metres;
  for (const r of s.rings) {
    if (lng < r.minX - dLng || lng > r.maxX + dLng || lat < r.minY - dLat || lat > r.maxY + dLat) continue;
    const xy = r.xy, n = xy.length;
    for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
      const ax = (xy[j]! - lng) * kx, ay = (xy[j + 1]! - lat) * ky;
      const bx = (xy[i]! - lng) * kx, by = (xy[i + 1]! - lat) * ky;
      const dx = bx - ax, dy = by - ay;
      const len2 = dx * dx + dy * dy;
      const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
      const px = ax + t * dx, py = ay + t * dy;
      if (px * px + py * py <= limit2) return true;
    }
  }
  return false;
}

/** Decodes a Google encoded polyline (lat, lng pairs) into interleaved [lng, lat]. */
function decodePolyline(s: string, precision: number): Float64Array {
  const factor = 10 ** precision;
  const out: number[] = [];
  let i = 0, lat = 0, lng = 0;
  const next = () => {
    let result = 0, shift = 0, b: number;
    do {
      b = s.charCodeAt(i++) - 63;
      result |= (b & 0x1f) << shift;
      shift += 5;
    } while (b >= 0x20);
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (i < s.length) {
    lat += next();
    lng += next();
    out.push(lng / factor, lat / factor);
  }
  return Float64Array.from(out);
}

function ringShape(xy: Float64Array): RingShape {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < xy.length; i += 2) {
    const x = xy[i]!, y = xy[i + 1]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  // About 8 edges per band keeps a point-in-ring test to a few dozen edges even for Bavaria's ~15 000.
  const n = xy.length / 2;
  const bands = Math.max(1, Math.min(4096, Math.ceil(n / 8)));
  const bandHeight = (maxY - minY) / bands || 1;
  const bandOf = (y: number) => Math.min(bands - 1, Math.floor((y - minY) / bandHeight));
  const counts = new Uint32Array(bands + 1);
  const span = (i: number): [number, number] => {
    const j = i === 0 ? xy.length - 2 : i - 2;
    const a = bandOf(xy[i + 1]!), b = bandOf(xy[j + 1]!);
    return a < b ? [a, b] : [b, a];
  };
  for (let i = 0; i < xy.length; i += 2) {
    const [lo, hi] = span(i);
    for (let b = lo; b <= hi; b++) counts[b + 1]!++;
  }
  const bandStart = new Uint32Array(bands + 1);
  for (let b = 0; b < bands; b++) bandStart[b + 1] = bandStart[b]! + counts[b + 1]!;
  const fill = bandStart.slice(0, bands);
  const bandEdges = new Uint32Array(bandStart[bands]!);
  for (let i = 0; i < xy.length; i += 2) {
    const [lo, hi] = span(i);
    for (let b = lo; b <= hi; b++) bandEdges[fill[b]!++] = i;
  }
  return { xy, minX, minY, maxX, maxY, bandHeight, bandStart, bandEdges };
}
