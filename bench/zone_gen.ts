/**
 * Synthetic land-value zones (Bodenrichtwertzonen) for `bench/valuation.ts`: a jittered lattice of cells of about
 * 0.5 km² covering the states that release their land values (not BW, SL, SH, BY; a cell belongs to the state its
 * centre lies in, by the same state borders the service uses), deterministic for a given total.
 *
 * Neighbouring cells share their jittered edges, so the zones tile the area without gaps or overlaps, except:
 * - rural blocks: about 10 % of aligned 3×3 blocks of cells are one large farmland/forest zone (LW/F, ENTW LF);
 * - multipolygons: about 4 % of the cells at every fourth column form one zone with the cell two columns on
 *   (the cell in between stays a zone of its own and lies inside the multipolygon's bounding box);
 * - holes: about 8 % of single cells have a hole, half of which is filled by a zone of another use;
 * - overlays: the rest of the total (a few %) are irregular round zones of 150 m to 1.7 km radius whose use differs
 *   from the cell under their centre (a commercial estate in a residential area, a village in farmland, …), as
 *   overlapping zones of another use appear in real data.
 *
 * Each state's cells are grouped into square blocks, one municipality each, named after the state's real place
 * names from `valuation/data/plz_places.json` (so PLZ/city requests reach the municipality median); Berlin, Hamburg
 * and Bremen/Bremerhaven are one municipality per city. Land values follow a per-municipality level (a few
 * urban, most rural), the use (commercial below residential, farmland a few euro) and the development state.
 */
import plzPlaces from "../valuation/data/plz_places.json" with { type: "json" };
import type { BrwZoneInput } from "../db/brw_zones.ts";
import type { ZoneGeometry } from "../valuation/geometry.ts";
import { resolvePlace } from "../valuation/places.ts";
import { NON_RELEASING_STATES, STATE_CODES, type StateCode } from "../valuation/states.ts";
import {
  BUILT_USES,
  type Muni,
  type Municipality,
  OVERLAY_USES,
  pickWeighted,
  useClassOf,
  zoneInput,
} from "./zone_attributes.ts";

import { AREA, blockRing, hash3, holeRing, roundRing } from "./zone_rings.ts";

export type { Municipality } from "./zone_attributes.ts";

/** The states whose zones are generated, in a fixed order. */
export const RELEASING_STATES: readonly StateCode[] = STATE_CODES.filter((s) => !NON_RELEASING_STATES.has(s));

/** Longitude degrees per latitude degree for about square cells (1 / cos 51.2°). */
const LNG_PER_LAT = 1 / Math.cos(51.2 * Math.PI / 180);

const NONE = 0, SINGLE = 1, HOLE = 2, HOLE_FILLED = 3, BLOCK = 4, MULTI = 5, ABSORBED = 6;
const P_BLOCK = 0.1, P_MULTI = 0.04, P_HOLE = 0.08, P_FILL = 0.5;

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The state of a point when it is one of the releasing states, else undefined. */
export function releasingStateAt(lat: number, lng: number): StateCode | undefined {
  const p = resolvePlace({ lat, lng });
  return p.kind === "resolved" && !NON_RELEASING_STATES.has(p.state) ? p.state : undefined;
}

/** `n` random points (rounded to 6 decimals, as a client sends them) inside the releasing states. */
export function randomPoints(n: number, seed: number): Array<{ lat: number; lng: number; state: StateCode }> {
  const rand = rng(seed);
  const out: Array<{ lat: number; lng: number; state: StateCode }> = [];
  while (out.length < n) {
    const lat = Math.round((AREA.lat0 + rand() * (AREA.lat1 - AREA.lat0)) * 1e6) / 1e6;
    const lng = Math.round((AREA.lng0 + rand() * (AREA.lng1 - AREA.lng0)) * 1e6) / 1e6;
    const state = releasingStateAt(lat, lng);
    if (state) out.push({ lat, lng, state });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Place names

interface PlaceRow {
  plz: string;
  state: string;
  name: string;
}

let placeRows: PlaceRow[] | undefined;

function places(): PlaceRow[] {
  placeRows ??= (plzPlaces.rows as string[]).map((l) => ({
    plz: l.slice(0, 5),
    state: l.slice(6, 8),
    name: l.slice(9),
  }));
  return placeRows;
}

/** A PLZ of the place `name` in `state` from the service's place data, or undefined. */
export function plzFor(state: string, name: string): string | undefined {
  return places().find((p) => p.state === state && p.name === name)?.plz;
}

/** The distinct place names of a state, in a fixed pseudo-random order. */
function stateNames(state: StateCode): string[] {
  if (state === "BE") return ["Berlin"];
  if (state === "HH") return ["Hamburg"];
  if (state === "HB") return ["Bremen", "Bremerhaven"];
  const names = [...new Set(places().filter((p) => p.state === state).map((p) => p.name))].sort();
  return names.map((n, i) => [hash3(i, names.length, 77), n] as const).sort((a, b) => a[0] - b[0]).map((x) =>
    x[1]
  );
}

/** AGS prefix of every state. */
const STATE_NUMBER: Record<StateCode, string> = {
  SH: "01",
  HH: "02",
  NI: "03",
  HB: "04",
  NW: "05",
  HE: "06",
  RP: "07",
  BW: "08",
  BY: "09",
  SL: "10",
  BE: "11",
  BB: "12",
  MV: "13",
  SN: "14",
  ST: "15",
  TH: "16",
};

// ---------------------------------------------------------------------------------------------------------------
// The plan: lattice, state and role of every cell

/** Where every cell lies and which zone it belongs to; generating one state's zones reads it. */
export interface ZonePlan {
  /** Zones in total (cells, blocks, multipolygons, hole fills and overlays). */
  total: number;
  rows: number;
  cols: number;
  /** Cell size in degrees. */
  dx: number;
  dy: number;
  /** Per cell: 0 outside the releasing states, else 1 + index in {@linkcode RELEASING_STATES}. */
  cellState: Uint8Array;
  /** Per cell: its role (single, with hole, block head, multipolygon head, part of another zone). */
  kind: Uint8Array;
  /** Per state: zones made of cells, overlays, cells, and the side (in cells) of a municipality block. */
  perState: Map<StateCode, { cellZones: number; overlays: number; cells: number; muniSide: number }>;
  /** Counts over all states. */
  counts: {
    cells: number;
    blocks: number;
    multipolygons: number;
    holes: number;
    filledHoles: number;
    overlays: number;
  };
}

function classify(rows: number, cols: number, dx: number, dy: number): Uint8Array {
  const cellState = new Uint8Array(rows * cols);
  const index = new Map(RELEASING_STATES.map((s, i) => [s, i + 1]));
  for (let r = 0; r < rows; r++) {
    const lat = AREA.lat0 + (r + 0.5) * dy;
    for (let c = 0; c < cols; c++) {
      const s = releasingStateAt(lat, AREA.lng0 + (c + 0.5) * dx);
      if (s) cellState[r * cols + c] = index.get(s)!;
    }
  }
  return cellState;
}

function roles(rows: number, cols: number, cellState: Uint8Array): Uint8Array {
  const kind = new Uint8Array(rows * cols);
  for (let r = 0; r + 3 <= rows; r += 3) {
    for (let c = 0; c + 3 <= cols; c += 3) {
      const s = cellState[r * cols + c]!;
      if (!s || hash3(r, c, 20) >= P_BLOCK) continue;
      let same = true;
      for (let i = 0; i < 3 && same; i++) {
        for (let j = 0; j < 3; j++) same &&= cellState[(r + i) * cols + c + j] === s;
      }
      if (!same) continue;
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) kind[(r + i) * cols + c + j] = ABSORBED;
      kind[r * cols + c] = BLOCK;
    }
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c + 2 < cols; c += 4) {
      const k = r * cols + c;
      const s = cellState[k]!;
      if (
        s && kind[k] === NONE && cellState[k + 2] === s && kind[k + 2] === NONE && hash3(r, c, 21) < P_MULTI
      ) {
        kind[k] = MULTI;
        kind[k + 2] = ABSORBED;
      }
    }
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      if (!cellState[k] || kind[k] !== NONE) continue;
      kind[k] = hash3(r, c, 22) < P_HOLE ? (hash3(r, c, 23) < P_FILL ? HOLE_FILLED : HOLE) : SINGLE;
    }
  }
  return kind;
}

/**
 * Lays out `total` zones: the cell size is chosen so that the cell zones come to about `1 - overlayShare` of the
 * total, and the overlays make up the rest exactly.
 */
export function planZones(total: number, overlayShare = 0.04): ZonePlan {
  // share of the bounding box inside releasing states, from a sample
  const rand = rng(99);
  let inside = 0;
  const samples = 20_000;
  for (let i = 0; i < samples; i++) {
    const lat = AREA.lat0 + rand() * (AREA.lat1 - AREA.lat0);
    if (releasingStateAt(lat, AREA.lng0 + rand() * (AREA.lng1 - AREA.lng0))) inside++;
  }
  const target = total * (1 - overlayShare);
  // zones per cell: blocks turn 9 cells into 1, multipolygons 2 into 1, filled holes add one
  const perCell = 1 - P_BLOCK * 8 / 9 - P_MULTI / 4 + P_HOLE * P_FILL;
  const span = (AREA.lat1 - AREA.lat0) * (AREA.lng1 - AREA.lng0) / LNG_PER_LAT;
  let dy = Math.sqrt(span * (inside / samples) * perCell / target);
  for (let attempt = 0;; attempt++) {
    const dx = dy * LNG_PER_LAT;
    const rows = Math.ceil((AREA.lat1 - AREA.lat0) / dy);
    const cols = Math.ceil((AREA.lng1 - AREA.lng0) / dx);
    const cellState = classify(rows, cols, dx, dy);
    const kind = roles(rows, cols, cellState);
    const perState = new Map<
      StateCode,
      { cellZones: number; overlays: number; cells: number; muniSide: number }
    >();
    for (const s of RELEASING_STATES) perState.set(s, { cellZones: 0, overlays: 0, cells: 0, muniSide: 1 });
    const counts = { cells: 0, blocks: 0, multipolygons: 0, holes: 0, filledHoles: 0, overlays: 0 };
    for (let k = 0; k < kind.length; k++) {
      const s = cellState[k]!;
      if (!s) continue;
      const st = perState.get(RELEASING_STATES[s - 1]!)!;
      st.cells++;
      counts.cells++;
      const kd = kind[k]!;
      if (kd === ABSORBED) continue;
      st.cellZones += kd === HOLE_FILLED ? 2 : 1;
      if (kd === BLOCK) counts.blocks++;
      if (kd === MULTI) counts.multipolygons++;
      if (kd === HOLE || kd === HOLE_FILLED) counts.holes++;
      if (kd === HOLE_FILLED) counts.filledHoles++;
    }
    const cellZones = [...perState.values()].reduce((a, s) => a + s.cellZones, 0);
    const overlays = total - cellZones;
    const off = cellZones / target;
    if (attempt < 3 && (Math.abs(off - 1) > 0.01 || overlays < total * 0.01)) {
      dy *= Math.sqrt(off);
      continue;
    }
    if (overlays < 0) throw new Error(`zone plan: ${cellZones} cell zones exceed the total of ${total}`);
    // overlays in proportion to the cell zones (largest remainder)
    const shares = [...perState].map(([s, v]) => ({ s, exact: overlays * v.cellZones / cellZones }));
    for (const x of shares) perState.get(x.s)!.overlays = Math.floor(x.exact);
    let left = overlays - shares.reduce((a, x) => a + Math.floor(x.exact), 0);
    for (const x of [...shares].sort((a, b) => (b.exact % 1) - (a.exact % 1))) {
      if (left-- <= 0) break;
      perState.get(x.s)!.overlays++;
    }
    for (const [s, v] of perState) {
      const names = stateNames(s).length;
      v.muniSide = s === "BE" || s === "HH" || s === "HB"
        ? 1 << 20
        : Math.max(2, Math.ceil(Math.sqrt(v.cells / names)));
    }
    counts.overlays = overlays;
    return { total, rows, cols, dx, dy, cellState, kind, perState, counts };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Generation of one state

/** The zones of `state` following `plan`, and the state's municipalities. */
export function generateState(
  plan: ZonePlan,
  state: StateCode,
): { zones: BrwZoneInput[]; municipalities: Municipality[] } {
  const stateIndex = RELEASING_STATES.indexOf(state) + 1;
  const info = plan.perState.get(state)!;
  const names = stateNames(state);
  const side = info.muniSide;
  const munis = new Map<number, Muni>();
  const rand = rng(1000 + stateIndex);
  const muniOf = (r: number, c: number): Muni => {
    const block = state === "HB"
      ? (AREA.lat0 + r * plan.dy > 53.35 ? 1 : 0)
      : Math.floor(r / side) * 100_000 + Math.floor(c / side);
    let m = munis.get(block);
    if (!m) {
      const n = munis.size;
      const name = state === "HB" ? names[block]! : names[n % names.length]!;
      const u = state === "BE" || state === "HH"
        ? 1
        : state === "HB"
        ? (block ? 0.45 : 0.75)
        : hash3(n, stateIndex, 30) ** 3;
      m = {
        name,
        state,
        key: `${STATE_NUMBER[state]}${String(n + 1).padStart(6, "0")}`,
        zones: 0,
        level: (25 + 1300 * u * u) * (0.7 + 0.6 * hash3(n, stateIndex, 31)),
      };
      munis.set(block, m);
    }
    return m;
  };
  const cellUse = (r: number, c: number, m: Muni): string => {
    const u = Math.sqrt(Math.max(0, (m.level - 25) / 1300));
    const h = hash3(r, c, 24);
    if (h < 0.45 * (1 - u)) return hash3(r, c, 25) < 0.75 ? "LW" : "F";
    return pickWeighted(BUILT_USES, hash3(r, c, 26));
  };

  const zones: BrwZoneInput[] = [];
  const cells: number[] = [];
  let seq = 0;
  const { rows, cols } = plan;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const k = r * cols + c;
      if (plan.cellState[k] !== stateIndex) continue;
      cells.push(k);
      const kd = plan.kind[k]!;
      if (kd === ABSORBED) continue;
      const m = muniOf(r, c);
      if (kd === BLOCK) {
        const g: ZoneGeometry = { type: "Polygon", coordinates: [blockRing(plan, r, c, 3, 3)] };
        zones.push(zoneInput(g, hash3(r, c, 27) < 0.7 ? "LW" : "F", m, ++seq, rand));
      } else if (kd === MULTI) {
        const g: ZoneGeometry = {
          type: "MultiPolygon",
          coordinates: [[blockRing(plan, r, c, 1, 1)], [blockRing(plan, r, c + 2, 1, 1)]],
        };
        zones.push(zoneInput(g, cellUse(r, c, m), m, ++seq, rand));
      } else {
        const outer = blockRing(plan, r, c, 1, 1);
        const g: ZoneGeometry = { type: "Polygon", coordinates: [outer] };
        const use = cellUse(r, c, m);
        if (kd === HOLE || kd === HOLE_FILLED) {
          const hole = holeRing(plan, r, c);
          g.coordinates.push([...hole].reverse());
          if (kd === HOLE_FILLED) {
            const fill = useClassOf(use) === "res" ? (hash3(r, c, 44) < 0.6 ? "SO" : "GE") : "W";
            zones.push(zoneInput({ type: "Polygon", coordinates: [hole] }, fill, m, ++seq, rand));
          }
        }
        zones.push(zoneInput(g, use, m, ++seq, rand));
      }
    }
  }
  for (let o = 0; o < info.overlays; o++) {
    const k = cells[Math.floor(rand() * cells.length)]!;
    const r = Math.floor(k / cols), c = k % cols;
    const m = muniOf(r, c);
    const under = plan.kind[k] === BLOCK ? "LW" : cellUse(r, c, m);
    const choices = OVERLAY_USES[useClassOf(under)];
    const use = choices[Math.floor(rand() * choices.length)]!;
    const radius = 0.3 + 2.2 * rand() ** 2; // in cells: about 200 m to 1.7 km
    const n = 12 + Math.floor(rand() * 29);
    const ring = roundRing(
      AREA.lng0 + (c + rand()) * plan.dx,
      AREA.lat0 + (r + rand()) * plan.dy,
      radius * plan.dx,
      radius * plan.dy,
      n,
      rand,
    );
    zones.push(zoneInput({ type: "Polygon", coordinates: [ring] }, use, m, ++seq, rand));
  }
  return { zones, municipalities: [...munis.values()].map(({ level: _l, ...m }) => m) };
}
