import assert from "node:assert/strict";
import plzPlaces from "./data/plz_places.json" with { type: "json" };
import stateBorders from "./data/state_borders.json" with { type: "json" };
import { BORDER_TOLERANCE_M, cityKey, looseCityKey, type PlaceResolution, resolvePlace } from "./places.ts";
import { isStateCode, STATE_CODES, STATE_NAMES, type StateCode } from "./states.ts";

/** Town centres (GeoNames coordinates) on both sides of state and national borders. */
const AT = {
  aschaffenburg: [49.97704, 9.15214],
  kahlAmMain: [50.06981, 9.00553],
  seligenstadt: [50.0432, 8.97394],
  grosskrotzenburg: [50.08333, 8.98333],
  wertheim: [49.759, 9.50852],
  kreuzwertheim: [49.76818, 9.51819],
  ulm: [48.39841, 9.99155],
  neuUlm: [48.39279, 10.01112],
  lindau: [47.54612, 9.68431],
  hamburg: [53.55073, 9.99302],
  bergedorf: [53.4886, 10.2125],
  norderstedt: [53.70177, 9.99328],
  oststeinbek: [53.54321, 10.16939],
  wedel: [53.58374, 9.69835],
  neuwerk: [53.916, 8.496],
  bremen: [53.07582, 8.80717],
  bremerhaven: [53.55357, 8.57553],
  delmenhorst: [53.0511, 8.63091],
  loxstedt: [53.47095, 8.64584],
  berlin: [52.52437, 13.41053],
  spandau: [52.5511, 13.19921],
  potsdam: [52.39886, 13.06566],
  kleinmachnow: [52.40786, 13.22514],
  muenchen: [48.13743, 11.57549],
  freilassing: [47.84085, 12.98114],
  salzburg: [47.79941, 13.04399],
  buesingen: [47.69638, 8.68759],
  schaffhausen: [47.69732, 8.63493],
  paris: [48.85341, 2.3488],
  vienna: [48.20849, 16.37208],
  northSea: [55.0, 6.0],
  baltic: [55.3, 13.5],
} as const satisfies Record<string, readonly [number, number]>;

const at = (p: readonly [number, number]) => ({ lat: p[0], lng: p[1] });
const stateOf = (r: PlaceResolution) => r.kind === "resolved" ? r.state : r.kind;

Deno.test("states: 16 codes with their German names", () => {
  assert.equal(STATE_CODES.length, 16);
  assert.equal(STATE_NAMES.BW, "Baden-Württemberg");
  assert.equal(STATE_NAMES.TH, "Thüringen");
  assert.ok(isStateCode("NW"));
  assert.ok(!isStateCode("XX"));
});

Deno.test("cityKey: lower case, umlauts spelt out, only [a-z0-9] kept", () => {
  assert.equal(cityKey("München"), "muenchen");
  assert.equal(cityKey("München"), cityKey("Muenchen"));
  assert.equal(cityKey("MÜNCHEN"), "muenchen");
  assert.equal(cityKey("Mu\u0308nchen"), "muenchen", "decomposed ü (NFD) counts as ü");
  assert.equal(cityKey("Neu-Ulm"), cityKey("Neu Ulm"));
  assert.equal(cityKey("Gießen"), "giessen");
  assert.equal(cityKey("Halle (Saale)"), "hallesaale");
  assert.equal(looseCityKey("Frankfurt am Main"), "frankfurt");
  assert.equal(looseCityKey("Frankfurt (Oder)"), "frankfurt");
  assert.equal(looseCityKey("Weiden i.d.OPf."), "weiden");
  assert.equal(looseCityKey("Lutherstadt Eisleben"), "eisleben");
  assert.equal(looseCityKey("Am Ettersberg"), "amettersberg", "a leading 'Am' is part of the name");
});

Deno.test("PLZ on both sides of state borders", () => {
  const cases: Array<[string, StateCode, string]> = [
    ["63739", "BY", "Aschaffenburg"],
    ["97877", "BW", "Wertheim"],
    ["88131", "BY", "Lindau (Bodensee)"],
    ["89231", "BY", "Neu-Ulm"],
    ["89073", "BW", "Ulm"],
    ["20095", "HH", "Hamburg"],
    ["22844", "SH", "Norderstedt"],
    ["22846", "SH", "Norderstedt"],
    ["10115", "BE", "Berlin"],
    ["14467", "BB", "Potsdam"],
    ["27568", "HB", "Bremerhaven"],
    ["28195", "HB", "Bremen"],
  ];
  for (const [plz, state, place] of cases) {
    assert.deepEqual(resolvePlace({ plz }), { kind: "resolved", state, by: "plz", plz, place }, plz);
  }
  assert.deepEqual(resolvePlace({ plz: " 63739 " }), resolvePlace({ plz: "63739" }), "surrounding blanks");
});

Deno.test("a PLZ spanning two states: decided by the city, by coordinates, else ambiguous", () => {
  assert.deepEqual(resolvePlace({ plz: "21039" }), {
    kind: "ambiguous",
    states: ["HH", "SH"],
    label: "PLZ 21039 liegt in Hamburg und Schleswig-Holstein; Ort oder Koordinaten angeben",
  });
  assert.deepEqual(resolvePlace({ plz: "21039", city: "Börnsen" }), {
    kind: "resolved",
    state: "SH",
    by: "city",
    plz: "21039",
    place: "Börnsen",
  });
  assert.deepEqual(resolvePlace({ plz: "21039", city: "hamburg" }), {
    kind: "resolved",
    state: "HH",
    by: "city",
    plz: "21039",
    place: "Hamburg",
  });
  assert.equal(
    stateOf(resolvePlace({ plz: "21039", city: "Hamburg-Bergedorf" })),
    "HH",
    "city with district",
  );
  assert.deepEqual(resolvePlace({ plz: "21039", ...at(AT.bergedorf) }), {
    kind: "resolved",
    state: "HH",
    by: "coordinates",
    plz: "21039",
    place: "Hamburg",
  });
  assert.deepEqual(resolvePlace({ plz: "22113", ...at(AT.oststeinbek) }), {
    kind: "resolved",
    state: "SH",
    by: "coordinates",
    plz: "22113",
    place: "Oststeinbek",
  });
  // Ulm (BW) and Elchingen (BY) share 89081.
  assert.equal(resolvePlace({ plz: "89081" }).kind, "ambiguous");
  assert.equal(stateOf(resolvePlace({ plz: "89081", city: "Ulm" })), "BW");
  assert.equal(stateOf(resolvePlace({ plz: "89081", city: "Elchingen" })), "BY");
  assert.equal(stateOf(resolvePlace({ plz: "89081", ...at(AT.ulm) })), "BW");
  // A city that is none of the PLZ's places cannot decide.
  assert.deepEqual(resolvePlace({ plz: "89081", city: "Köln" }), {
    kind: "ambiguous",
    states: ["BW", "BY"],
    label:
      "PLZ 89081 liegt in Baden-Württemberg und Bayern, Ort „Köln“ gehört nicht dazu; Koordinaten angeben",
  });
});

Deno.test("a known PLZ decides over a city that is not among its places", () => {
  assert.deepEqual(resolvePlace({ plz: "80331", city: "Hamburg" }), {
    kind: "resolved",
    state: "BY",
    by: "plz",
    plz: "80331",
    place: "München",
  });
  assert.deepEqual(resolvePlace({ plz: "88131", city: "Bodolz" }), {
    kind: "resolved",
    state: "BY",
    by: "plz",
    plz: "88131",
    place: "Bodolz",
  }, "the city picks the place within the PLZ");
});

Deno.test("city spellings with and without umlauts", () => {
  for (const city of ["München", "Muenchen", "MÜNCHEN", "  münchen  ", "Mu\u0308nchen"]) {
    assert.deepEqual(
      resolvePlace({ city }),
      { kind: "resolved", state: "BY", by: "city", place: "München" },
      city,
    );
  }
  assert.deepEqual(resolvePlace({ city: "Neu Ulm" }), {
    kind: "resolved",
    state: "BY",
    by: "city",
    place: "Neu-Ulm",
  });
});

Deno.test("city only", () => {
  assert.deepEqual(resolvePlace({ city: "Frankfurt am Main" }), {
    kind: "resolved",
    state: "HE",
    by: "city",
    place: "Frankfurt am Main",
  });
  assert.equal(stateOf(resolvePlace({ city: "Frankfurt (Oder)" })), "BB");
  assert.deepEqual(resolvePlace({ city: "Frankfurt" }), {
    kind: "ambiguous",
    states: ["BB", "HE"],
    label: "Ort „Frankfurt“ gibt es in Brandenburg und Hessen; PLZ oder Koordinaten angeben",
  });
  const neustadt = resolvePlace({ city: "Neustadt" });
  assert.equal(neustadt.kind, "ambiguous");
  assert.ok(
    neustadt.kind === "ambiguous" &&
      ["BY", "HE", "RP", "SN"].every((s) => neustadt.states.includes(s as StateCode)),
  );
  assert.equal(
    stateOf(resolvePlace({ city: "Lindau" })),
    "ambiguous",
    "Lindau (SH) and Lindau (Bodensee) (BY)",
  );
  assert.equal(stateOf(resolvePlace({ city: "Lindau (Bodensee)" })), "BY");
  assert.equal(stateOf(resolvePlace({ city: "Bremerhaven" })), "HB");
  assert.equal(stateOf(resolvePlace({ city: "Norderstedt" })), "SH");
  assert.equal(stateOf(resolvePlace({ city: "Aschaffenburg" })), "BY");
  assert.equal(stateOf(resolvePlace({ city: "Wertheim" })), "BW");
  assert.equal(
    stateOf(resolvePlace({ city: "Hamfelde" })),
    "SH",
    "two municipalities of that name, both in SH",
  );
  assert.deepEqual(resolvePlace({ city: "Berlin-Mitte" }), {
    kind: "resolved",
    state: "BE",
    by: "city",
    place: "Berlin",
  });
  assert.equal(stateOf(resolvePlace({ city: "Charlottenburg" })), "BE", "a district name from GeoNames");
  assert.equal(stateOf(resolvePlace({ city: "St. Ingbert" })), "SL");
  assert.equal(stateOf(resolvePlace({ city: "Frankfurt/Main" })), "HE", "qualifier written differently");
  assert.equal(stateOf(resolvePlace({ city: "Frankfurt/Oder" })), "BB");
  assert.deepEqual(resolvePlace({ city: "Rothenburg o.d.T." }), {
    kind: "resolved",
    state: "BY",
    by: "city",
    place: "Rothenburg ob der Tauber",
  });
  assert.equal(stateOf(resolvePlace({ city: "Weiden i.d.OPf." })), "BY");
  assert.equal(
    stateOf(resolvePlace({ plz: "99999", city: "Köln" })),
    "NW",
    "an unknown PLZ leaves the city to decide",
  );
});

Deno.test("coordinates decide the state near borders, enclaves and exclaves", () => {
  const cases: Array<[keyof typeof AT, StateCode]> = [
    ["aschaffenburg", "BY"],
    ["kahlAmMain", "BY"],
    ["seligenstadt", "HE"],
    ["grosskrotzenburg", "HE"],
    ["wertheim", "BW"],
    ["kreuzwertheim", "BY"],
    ["ulm", "BW"],
    ["neuUlm", "BY"],
    ["lindau", "BY"],
    ["hamburg", "HH"],
    ["norderstedt", "SH"],
    ["wedel", "SH"],
    ["neuwerk", "HH"],
    ["bremen", "HB"],
    ["bremerhaven", "HB"],
    ["delmenhorst", "NI"],
    ["loxstedt", "NI"],
    ["berlin", "BE"],
    ["spandau", "BE"],
    ["potsdam", "BB"],
    ["kleinmachnow", "BB"],
    ["freilassing", "BY"],
    ["buesingen", "BW"],
  ];
  for (const [town, state] of cases) {
    assert.deepEqual(resolvePlace(at(AT[town])), { kind: "resolved", state, by: "coordinates" }, town);
  }
});

Deno.test("coordinates win over a disagreeing PLZ or city", () => {
  assert.deepEqual(resolvePlace({ plz: "20095", ...at(AT.muenchen) }), {
    kind: "resolved",
    state: "BY",
    by: "coordinates",
  });
  assert.deepEqual(resolvePlace({ city: "Hamburg", ...at(AT.potsdam) }), {
    kind: "resolved",
    state: "BB",
    by: "coordinates",
  });
  assert.deepEqual(resolvePlace({ plz: "99999", ...at(AT.neuUlm) }), {
    kind: "resolved",
    state: "BY",
    by: "coordinates",
  }, "an unknown PLZ does not matter when the coordinates decide");
  assert.deepEqual(resolvePlace({ city: "Neustadt", ...at(AT.berlin) }), {
    kind: "resolved",
    state: "BE",
    by: "coordinates",
  });
});

/** The point where the state changes on the straight line from `a` to `b` (bisection through resolvePlace). */
function borderBetween(a: readonly [number, number], b: readonly [number, number]): [number, number] {
  const side = stateOf(resolvePlace(at(a)));
  let lo = 0, hi = 1;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    const p = [a[0] + (b[0] - a[0]) * mid, a[1] + (b[1] - a[1]) * mid] as const;
    if (stateOf(resolvePlace(at(p))) === side) lo = mid;
    else hi = mid;
  }
  return [a[0] + (b[0] - a[0]) * hi, a[1] + (b[1] - a[1]) * hi];
}

/** Moves `p` by `metres` along the direction from `from` to `to`. */
function step(
  p: [number, number],
  from: readonly [number, number],
  to: readonly [number, number],
  metres: number,
) {
  const dy = (to[0] - from[0]) * 111_195, dx = (to[1] - from[1]) * 111_195 * Math.cos(p[0] * Math.PI / 180);
  const len = Math.hypot(dx, dy);
  return [
    p[0] + dy / len * metres / 111_195,
    p[1] + dx / len * metres / (111_195 * Math.cos(p[0] * Math.PI / 180)),
  ] as const;
}

Deno.test("within the border tolerance the PLZ's state stands; beyond it the coordinates decide", () => {
  assert.equal(BORDER_TOLERANCE_M, 100);
  // Hamburg (HH) → Norderstedt (SH): the border, then points on the Hamburg side.
  const border = borderBetween(AT.hamburg, AT.norderstedt);
  const justInHamburg = step(border, AT.norderstedt, AT.hamburg, 30);
  const wellInHamburg = step(border, AT.norderstedt, AT.hamburg, 400);
  assert.equal(stateOf(resolvePlace(at(justInHamburg))), "HH");
  assert.deepEqual(resolvePlace({ plz: "22844", ...at(justInHamburg) }), {
    kind: "resolved",
    state: "SH",
    by: "plz",
    plz: "22844",
    place: "Norderstedt",
  });
  assert.equal(stateOf(resolvePlace({ plz: "22844", ...at(wellInHamburg) })), "HH");
  // Freilassing (BY) → Salzburg (AT): just across the national border the PLZ still stands, farther out not.
  const national = borderBetween(AT.freilassing, AT.salzburg);
  const justInAustria = step(national, AT.freilassing, AT.salzburg, 30);
  assert.equal(stateOf(resolvePlace(at(justInAustria))), "outside");
  assert.equal(stateOf(resolvePlace({ plz: "83395", ...at(justInAustria) })), "BY");
  assert.equal(stateOf(resolvePlace({ plz: "83395", ...at(AT.salzburg) })), "outside");
});

Deno.test("coordinates outside Germany", () => {
  assert.deepEqual(resolvePlace(at(AT.paris)), {
    kind: "outside",
    label: "Koordinaten 48.85341, 2.3488 liegen außerhalb Deutschlands",
  });
  for (const place of ["vienna", "northSea", "baltic", "schaffhausen", "salzburg"] as const) {
    assert.equal(resolvePlace(at(AT[place])).kind, "outside", place);
  }
  assert.equal(resolvePlace({ lat: 0, lng: 0 }).kind, "outside");
  assert.equal(
    resolvePlace({ plz: "10115", ...at(AT.paris) }).kind,
    "outside",
    "a German PLZ does not move Paris",
  );
});

Deno.test("unknown PLZ or city", () => {
  assert.deepEqual(resolvePlace({ plz: "00000" }), { kind: "unknown", label: "PLZ 00000 unbekannt" });
  assert.deepEqual(resolvePlace({ plz: "99999" }), { kind: "unknown", label: "PLZ 99999 unbekannt" });
  assert.deepEqual(resolvePlace({ plz: "1234" }), { kind: "unknown", label: "PLZ 1234 unbekannt" });
  assert.deepEqual(resolvePlace({ city: "Xyzzyhausen" }), {
    kind: "unknown",
    label: "Ort „Xyzzyhausen“ unbekannt",
  });
  assert.deepEqual(resolvePlace({ plz: "99999", city: "Xyzzyhausen" }), {
    kind: "unknown",
    label: "PLZ 99999 und Ort „Xyzzyhausen“ unbekannt",
  });
  assert.equal(resolvePlace({ city: "---" }).kind, "unknown");
});

Deno.test("nothing given", () => {
  assert.deepEqual(resolvePlace({}), { kind: "none" });
  assert.deepEqual(resolvePlace({ plz: "", city: "   ", lat: undefined, lng: undefined }), { kind: "none" });
  assert.deepEqual(resolvePlace({ lat: 48.1 }), { kind: "none" }, "half a coordinate pair is no place");
  assert.deepEqual(resolvePlace({ lat: Number.NaN, lng: 11 }), { kind: "none" });
});

Deno.test("reference data: well-formed rows, 16 states, borders for every state", () => {
  const plzs = new Set<string>();
  const states = new Set<string>();
  for (const row of plzPlaces.rows) {
    assert.match(row, /^\d{5} [A-Z]{2} \S/, row);
    plzs.add(row.slice(0, 5));
    states.add(row.slice(6, 8));
  }
  assert.ok(plzs.size > 8000, `${plzs.size} PLZ`);
  assert.deepEqual([...states].sort(), [...STATE_CODES].sort());
  const borders: Record<string, string[]> = stateBorders.states;
  for (const s of STATE_CODES) assert.ok((borders[s]?.length ?? 0) > 0, s);
});

Deno.test("lookups are fast (well under 0.1 ms)", () => {
  const points = Object.values(AT);
  const queries = [
    ...points.map(at),
    { plz: "21039", city: "Börnsen" },
    { city: "Frankfurt am Main" },
    { plz: "80331" },
  ];
  for (const q of queries) resolvePlace(q); // loads the data
  const rounds = 200;
  const start = performance.now();
  for (let i = 0; i < rounds; i++) for (const q of queries) resolvePlace(q);
  const perLookup = (performance.now() - start) / (rounds * queries.length);
  assert.ok(perLookup < 0.1, `${(perLookup * 1000).toFixed(1)} µs per lookup`);
});
