/**
 * The attributes of the synthetic land-value zones of `zone_gen.ts`: the municipalities, the uses and their
 * shares, and each zone's land value, floor-area ratios, development state and name.
 */
import type { BrwZoneInput } from "../db/brw_zones.ts";
import { bboxOf, type ZoneGeometry } from "../valuation/geometry.ts";
import type { StateCode } from "../valuation/states.ts";

/** A municipality of the synthetic data: its name, state, key and number of zones. */
export interface Municipality {
  name: string;
  state: StateCode;
  key: string;
  zones: number;
}

/** A municipality while its zones are generated, with its land value level. */
export interface Muni extends Municipality {
  /** Residential land value level in euro per m². */
  level: number;
}

/** The uses of built-up cells and their shares. */
export const BUILT_USES: ReadonlyArray<readonly [string, number]> = [
  ["W", 0.5],
  ["WA", 0.12],
  ["WR", 0.03],
  ["MI", 0.1],
  ["MD", 0.05],
  ["MK", 0.02],
  ["GE", 0.1],
  ["GI", 0.02],
  ["SO", 0.06],
];

/** The value of `table` that the number `h` in [0, 1) falls on, by the weights. */
export function pickWeighted(table: ReadonlyArray<readonly [string, number]>, h: number): string {
  let acc = 0;
  for (const [v, w] of table) if (h < (acc += w)) return v;
  return table[table.length - 1]![0];
}

/** The class of a use: residential, mixed, commercial or other (farmland, forest, special). */
export function useClassOf(use: string): "res" | "mixed" | "com" | "other" {
  if (use.startsWith("W")) return "res";
  if (use.startsWith("M")) return "mixed";
  if (use.startsWith("G")) return "com";
  return "other";
}

/** The uses an overlay may have over a cell of each class (another use than the cell's). */
export const OVERLAY_USES: Record<"res" | "mixed" | "com" | "other", readonly string[]> = {
  res: ["GE", "MI", "SO", "MK", "GE"],
  mixed: ["W", "GE", "SO", "WA"],
  com: ["W", "MI", "SO"],
  other: ["W", "WA", "GE", "SO", "MD", "W"],
};

const ZONE_WORDS = [
  "Ortslage",
  "Nord",
  "Süd",
  "Ost",
  "West",
  "Mitte",
  "Siedlung",
  "Am Anger",
  "Feldmark",
  "Altort",
];

/**
 * A zone of `muni` with geometry `g` and use `use`: its land value from the municipality's level, the use and the
 * development state (`entw`, else drawn), GFZ or WGFZ for built uses, a name and number; counts it for `muni`.
 */
export function zoneInput(
  g: ZoneGeometry,
  use: string,
  muni: Muni,
  seq: number,
  rand: () => number,
  entw?: string,
): BrwZoneInput {
  const b = bboxOf(g);
  const cls = useClassOf(use);
  const land = use === "LW" || use === "F";
  const dev = entw ?? (land ? "LF" : rand() < 0.92 ? "B" : rand() < 0.5 ? "E" : "R");
  let brw: number;
  if (use === "LW") brw = 0.6 + 5.4 * rand();
  else if (use === "F") brw = 0.2 + 1.3 * rand();
  else {
    const f = cls === "res"
      ? 0.6 + 0.9 * rand()
      : cls === "mixed"
      ? (use === "MK" ? 1.2 + 1.3 * rand() : 0.8 + 0.5 * rand())
      : cls === "com"
      ? 0.25 + 0.25 * rand()
      : 0.3 + 0.5 * rand();
    brw = Math.max(3, muni.level * f);
    if (dev === "E") brw *= 0.3 + 0.2 * rand();
    if (dev === "R") brw *= 0.5 + 0.2 * rand();
  }
  const built = !land && cls !== "other";
  const gfzDraw = rand();
  muni.zones++;
  return {
    brw: brw < 10 ? Math.round(brw * 100) / 100 : Math.round(brw),
    gfz: built && gfzDraw < 0.3 ? Math.round((0.3 + 2.2 * rand()) * 10) / 10 : null,
    wgfz: built && gfzDraw >= 0.3 && gfzDraw < 0.55 ? Math.round((0.4 + 1.6 * rand()) * 10) / 10 : null,
    nutzung: use,
    entwicklung: dev,
    zone_name: rand() < 0.35 ? null : `${muni.name} ${ZONE_WORDS[Math.floor(rand() * ZONE_WORDS.length)]}`,
    zone_number: String(seq),
    municipality_name: muni.name,
    municipality_key: muni.key,
    geometry: g,
    min_lat: b.minY,
    max_lat: b.maxY,
    min_lng: b.minX,
    max_lng: b.maxX,
  };
}
