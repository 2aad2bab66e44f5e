/**
 * The request mixes of `bench:valuation`: the baseline bodies (coordinates, postcode and place, place alone; kauf
 * and miete) with the kind of each, and the checks that every body and some listing ids answer 200 before the runs.
 */
import { BASELINE_PATH } from "../routes/valuation.ts";
import { checkInterrupted } from "./harness.ts";
import { listingPath } from "./mix.ts";
import { type Municipality, plzFor, randomPoints, rng } from "./zone_gen.ts";

/** The baseline request bodies (one JSON text each) and the kind of each. */
export function baselineBodies(n: number, munis: Municipality[]): { bodies: string[]; kindOf: string[] } {
  const rand = rng(2026);
  const pts = randomPoints(n, 777);
  const withPlz = munis.filter((m) => m.zones >= 5).map((m) => ({ ...m, plz: plzFor(m.state, m.name) }))
    .filter((m): m is Municipality & { plz: string } => m.plz !== undefined);
  const big = withPlz.filter((m) => m.state === "BE" || m.state === "HH" || m.state === "HB");
  const byState = new Map<string, Array<Municipality & { plz: string }>>();
  for (const m of withPlz) byState.set(m.state, [...(byState.get(m.state) ?? []), m]);
  // a quarter of the place-name requests ask for one of the city-states (about 2,000 zones each)
  const pickMuni = (): [Municipality & { plz: string }, string] =>
    rand() < 0.25 && big.length
      ? [big[Math.floor(rand() * big.length)]!, " (city-state)"]
      : [withPlz[Math.floor(rand() * withPlz.length)]!, ""];
  const propertyType = () => {
    const r = rand();
    return r < 0.35
      ? "apartment"
      : r < 0.65
      ? "house"
      : r < 0.8
      ? "land"
      : r < 0.9
      ? "commercial"
      : undefined;
  };
  const kindOf: string[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = pts[i]!;
    const r = rand();
    let kind: string;
    let body: Record<string, unknown>;
    if (r < 0.7) {
      kind = "kauf lat/lng";
      body = {
        lat: p.lat,
        lng: p.lng,
        property_type: propertyType(),
        art: rand() < 0.8 ? "kauf" : undefined,
      };
    } else if (r < 0.75) {
      kind = "kauf lat/lng + plz/city";
      const local = byState.get(p.state) ?? withPlz;
      const m = local[Math.floor(rand() * local.length)]!;
      body = { plz: m.plz, city: m.name, lat: p.lat, lng: p.lng, property_type: propertyType(), art: "kauf" };
    } else if (r < 0.83) {
      const [m, tag] = pickMuni();
      kind = `kauf plz/city${tag}`;
      body = { plz: m.plz, city: m.name, property_type: propertyType(), art: "kauf" };
    } else if (r < 0.87) {
      const [m, tag] = pickMuni();
      kind = `kauf city${tag}`;
      body = { city: m.name, property_type: propertyType() };
    } else if (r < 0.95) {
      kind = "miete lat/lng";
      body = { lat: p.lat, lng: p.lng, property_type: rand() < 0.6 ? "apartment" : "house", art: "miete" };
    } else {
      kind = "miete plz/city";
      const [m] = pickMuni();
      body = { plz: m.plz, city: m.name, property_type: rand() < 0.6 ? "apartment" : "house", art: "miete" };
    }
    kindOf.push(kind);
    bodies.push(JSON.stringify(body)); // undefined members are left out
  }
  return { bodies, kindOf };
}

/** Posts every body once (each from its own address) and counts the answers' sources; fails on non-200. */
export async function checkBodies(base: string, bodies: string[]): Promise<Map<string, number>> {
  const sources = new Map<string, number>();
  for (const [i, body] of bodies.entries()) {
    checkInterrupted();
    const res = await fetch(base + BASELINE_PATH, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-forwarded-for": `198.18.${Math.floor(i / 250)}.${1 + (i % 250)}`,
      },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${body} answered ${res.status}: ${text.slice(0, 300)}`);
    const src = (JSON.parse(text) as { source: string }).source;
    sources.set(src, (sources.get(src) ?? 0) + 1);
  }
  return sources;
}

/** Requests the first five ids of the single-listing mix once; fails unless each answers 200. */
export async function checkIds(base: string, ids: string[]): Promise<void> {
  for (const [i, id] of ids.slice(0, 5).entries()) {
    const res = await fetch(base + listingPath(id), { headers: { "x-forwarded-for": `192.0.2.${i + 1}` } });
    const text = await res.text();
    if (res.status !== 200) {
      throw new Error(`GET ${listingPath(id)} answered ${res.status}: ${text.slice(0, 300)}`);
    }
  }
}
