/**
 * The geometry of the lattice of `zone_gen.ts`: a seeded hash, the jittered nodes and edges that neighbouring cells
 * share (so the zones tile the area), and the rings of cell blocks, holes and round overlays.
 */
import type { Position, Ring } from "../valuation/geometry.ts";

/** Bounding box of Germany (degrees) that the lattice spans. */
export const AREA = { lat0: 47.2, lat1: 55.1, lng0: 5.8, lng1: 15.1 } as const;

/** The size of a cell of the lattice, in degrees. */
export interface Cells {
  /** Longitude degrees per cell. */
  dx: number;
  /** Latitude degrees per cell. */
  dy: number;
}

/** A 32-bit integer hash of three integers, as a number in [0, 1). */
export function hash3(a: number, b: number, salt: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul((b + 0x7f4a7c15) | 0, 0xc2b2ae35) ^
    Math.imul(salt + 0x165667b1, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** A coordinate rounded to 8 decimals. */
const r8 = (v: number): number => Math.round(v * 1e8) / 1e8;

function nodeX(p: Cells, i: number, j: number): number {
  return AREA.lng0 + (j + (hash3(i, j, 1) - 0.5) * 0.24) * p.dx;
}

function nodeY(p: Cells, i: number, j: number): number {
  return AREA.lat0 + (i + (hash3(i, j, 2) - 0.5) * 0.24) * p.dy;
}

function node(p: Cells, i: number, j: number): Position {
  return [r8(nodeX(p, i, j)), r8(nodeY(p, i, j))];
}

/** Intermediate points of the edge from node (i, j) to node (i, j + 1) (horizontal) or (i + 1, j) (vertical). */
function edge(p: Cells, i: number, j: number, horizontal: boolean): Position[] {
  const salt = horizontal ? 3 : 4;
  const k = 1 + Math.floor(hash3(i, j, salt) * 6);
  const [x0, y0] = [nodeX(p, i, j), nodeY(p, i, j)];
  const [x1, y1] = horizontal
    ? [nodeX(p, i, j + 1), nodeY(p, i, j + 1)]
    : [nodeX(p, i + 1, j), nodeY(p, i + 1, j)];
  const out: Position[] = [];
  for (let m = 1; m <= k; m++) {
    const t = m / (k + 1);
    const off = (hash3(i * 8 + m, j, salt + 10) - 0.5) * 0.16 * Math.sin(Math.PI * t);
    const x = x0 + t * (x1 - x0) + (horizontal ? 0 : off * p.dx);
    const y = y0 + t * (y1 - y0) + (horizontal ? off * p.dy : 0);
    out.push([r8(x), r8(y)]);
  }
  return out;
}

/** The counter-clockwise outer ring of the rectangle of cells from (r0, c0), `h` rows by `w` columns. */
export function blockRing(p: Cells, r0: number, c0: number, h: number, w: number): Ring {
  const ring: Ring = [];
  for (let j = c0; j < c0 + w; j++) ring.push(node(p, r0, j), ...edge(p, r0, j, true));
  for (let i = r0; i < r0 + h; i++) ring.push(node(p, i, c0 + w), ...edge(p, i, c0 + w, false));
  for (let j = c0 + w; j > c0; j--) ring.push(node(p, r0 + h, j), ...edge(p, r0 + h, j - 1, true).reverse());
  for (let i = r0 + h; i > r0; i--) ring.push(node(p, i, c0), ...edge(p, i - 1, c0, false).reverse());
  ring.push(ring[0]!);
  return ring;
}

/** A counter-clockwise hole-sized ring in the middle of cell (r, c). */
export function holeRing(p: Cells, r: number, c: number): Ring {
  const cx = AREA.lng0 + (c + 0.5) * p.dx, cy = AREA.lat0 + (r + 0.5) * p.dy;
  const hx = (0.08 + 0.1 * hash3(r, c, 40)) * p.dx, hy = (0.08 + 0.1 * hash3(r, c, 41)) * p.dy;
  const n = 4 + Math.floor(hash3(r, c, 42) * 5);
  const ring: Ring = [];
  for (let m = 0; m < n; m++) {
    const a = 2 * Math.PI * m / n;
    const f = 0.8 + 0.2 * hash3(r * 8 + m, c, 43);
    ring.push([r8(cx + hx * f * Math.cos(a)), r8(cy + hy * f * Math.sin(a))]);
  }
  ring.push(ring[0]!);
  return ring;
}

/** A counter-clockwise irregular round ring. */
export function roundRing(
  cx: number,
  cy: number,
  rx: number,
  ry: number,
  n: number,
  rand: () => number,
): Ring {
  const ring: Ring = [];
  for (let m = 0; m < n; m++) {
    const a = 2 * Math.PI * m / n;
    const f = 0.8 + 0.4 * rand();
    ring.push([r8(cx + rx * f * Math.cos(a)), r8(cy + ry * f * Math.sin(a))]);
  }
  ring.push(ring[0]!);
  return ring;
}
