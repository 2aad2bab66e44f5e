/**
 * The invented sample catalogue: plausible listings in German cities, all marked `beispiel: true`.
 *
 * Deterministic for a given seed, so tests and benchmarks can rely on its shape.
 */
import { PROPERTY_TYPES, TRANSACTION_TYPES } from "./listing.ts";

interface City {
  name: string;
  state: string;
  plz: string[];
  lat: number;
  lng: number;
  /** Typical asking price per m² of living area for an apartment, in euro. */
  buy: number;
  /** Typical monthly net rent per m², in euro. */
  rent: number;
}

/** How far sample listings lie around their city's centre: the full height and width in degrees. */
export const SAMPLE_SPREAD = { lat: 0.08, lng: 0.12 } as const;

/** Cities of the sample catalogue, with real postal codes and coordinates and typical 2026 price levels. */
export const SAMPLE_CITIES: readonly City[] = [
  {
    name: "Berlin",
    state: "BE",
    plz: ["10115", "10437", "10999", "12043", "13187"],
    lat: 52.52,
    lng: 13.405,
    buy: 5200,
    rent: 16,
  },
  {
    name: "Hamburg",
    state: "HH",
    plz: ["20095", "20249", "22765", "22041"],
    lat: 53.551,
    lng: 9.993,
    buy: 5900,
    rent: 16.5,
  },
  {
    name: "München",
    state: "BY",
    plz: ["80331", "80797", "81667", "81369"],
    lat: 48.137,
    lng: 11.575,
    buy: 9000,
    rent: 22,
  },
  {
    name: "Köln",
    state: "NW",
    plz: ["50667", "50823", "50935", "51103"],
    lat: 50.938,
    lng: 6.96,
    buy: 4700,
    rent: 13.5,
  },
  {
    name: "Frankfurt am Main",
    state: "HE",
    plz: ["60311", "60487", "60594", "60385"],
    lat: 50.11,
    lng: 8.682,
    buy: 6100,
    rent: 17,
  },
  {
    name: "Stuttgart",
    state: "BW",
    plz: ["70173", "70178", "70193", "70372"],
    lat: 48.776,
    lng: 9.183,
    buy: 5400,
    rent: 17,
  },
  {
    name: "Düsseldorf",
    state: "NW",
    plz: ["40210", "40477", "40545"],
    lat: 51.227,
    lng: 6.773,
    buy: 4800,
    rent: 14,
  },
  {
    name: "Leipzig",
    state: "SN",
    plz: ["04103", "04109", "04275", "04315"],
    lat: 51.34,
    lng: 12.375,
    buy: 2900,
    rent: 9.5,
  },
  {
    name: "Dresden",
    state: "SN",
    plz: ["01067", "01097", "01307", "01309"],
    lat: 51.05,
    lng: 13.737,
    buy: 3000,
    rent: 9.5,
  },
  {
    name: "Hannover",
    state: "NI",
    plz: ["30159", "30161", "30169", "30173"],
    lat: 52.375,
    lng: 9.732,
    buy: 3600,
    rent: 11.5,
  },
  {
    name: "Nürnberg",
    state: "BY",
    plz: ["90402", "90408", "90429", "90478"],
    lat: 49.452,
    lng: 11.077,
    buy: 4300,
    rent: 12.5,
  },
  {
    name: "Bremen",
    state: "HB",
    plz: ["28195", "28203", "28209", "28215"],
    lat: 53.079,
    lng: 8.801,
    buy: 3000,
    rent: 10.5,
  },
  {
    name: "Essen",
    state: "NW",
    plz: ["45127", "45130", "45138"],
    lat: 51.455,
    lng: 7.011,
    buy: 2600,
    rent: 9,
  },
  {
    name: "Potsdam",
    state: "BB",
    plz: ["14467", "14469", "14471", "14482"],
    lat: 52.39,
    lng: 13.064,
    buy: 4600,
    rent: 13,
  },
  {
    name: "Erfurt",
    state: "TH",
    plz: ["99084", "99085", "99089", "99096"],
    lat: 50.978,
    lng: 11.029,
    buy: 2500,
    rent: 9,
  },
  {
    name: "Mainz",
    state: "RP",
    plz: ["55116", "55118", "55122", "55131"],
    lat: 49.999,
    lng: 8.273,
    buy: 4500,
    rent: 13.5,
  },
  {
    name: "Kiel",
    state: "SH",
    plz: ["24103", "24105", "24114", "24143"],
    lat: 54.323,
    lng: 10.123,
    buy: 3200,
    rent: 10.5,
  },
  {
    name: "Rostock",
    state: "MV",
    plz: ["18055", "18057", "18059", "18069"],
    lat: 54.092,
    lng: 12.099,
    buy: 3100,
    rent: 9.5,
  },
  {
    name: "Magdeburg",
    state: "ST",
    plz: ["39104", "39106", "39108", "39112"],
    lat: 52.121,
    lng: 11.628,
    buy: 2000,
    rent: 7.5,
  },
  {
    name: "Saarbrücken",
    state: "SL",
    plz: ["66111", "66113", "66117", "66119"],
    lat: 49.235,
    lng: 6.996,
    buy: 2200,
    rent: 8.5,
  },
  {
    name: "Freiburg im Breisgau",
    state: "BW",
    plz: ["79098", "79100", "79102", "79104"],
    lat: 47.999,
    lng: 7.842,
    buy: 5600,
    rent: 15,
  },
  {
    name: "Münster",
    state: "NW",
    plz: ["48143", "48145", "48147", "48149"],
    lat: 51.961,
    lng: 7.626,
    buy: 4400,
    rent: 12.5,
  },
];

/** One generated sample listing, ready to insert. */
export interface SampleListing {
  status: "draft" | "published" | "withdrawn";
  reference: string;
  title: string;
  description: string;
  city: string;
  postal_code: string;
  property_type: (typeof PROPERTY_TYPES)[number];
  transaction_type: (typeof TRANSACTION_TYPES)[number];
  asked_price: number | null;
  total_rooms: number | null;
  square_meters: number;
  latitude: number | null;
  longitude: number | null;
  published_at: Date | null;
  contact: { provider_name: string; contact_name: string; contact_email: string; contact_phone: string };
}

/** A small seeded pseudo-random generator (mulberry32): same seed, same sequence. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ADJECTIVES = [
  "Helle",
  "Ruhige",
  "Moderne",
  "Sanierte",
  "Gemütliche",
  "Großzügige",
  "Charmante",
  "Neuwertige",
];
const CONTACTS = ["Anna Schmidt", "Jonas Becker", "Lea Wagner", "Paul Hoffmann", "Mia Schäfer", "Felix Koch"];

/** Generates listing number `i` (0-based) of a sample catalogue; `now` anchors the publication times. */
export function sampleListing(i: number, rand: () => number, now: number): SampleListing {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const city = SAMPLE_CITIES[i % SAMPLE_CITIES.length]!;
  const r = rand();
  const property_type = r < 0.55 ? "apartment" : r < 0.8 ? "house" : r < 0.9 ? "land" : "commercial";
  const transaction_type = property_type === "land"
    ? (rand() < 0.9 ? "buy" : "rent")
    : rand() < 0.55
    ? "buy"
    : "rent";
  const shape = SHAPES[property_type](rand, city, transaction_type);
  const s = rand();
  const status = s < 0.92 ? "published" : s < 0.96 ? "withdrawn" : "draft";
  const withPrice = rand() >= 0.04;
  const withCoords = rand() >= 0.03;
  const contact = pick(CONTACTS);
  return {
    status,
    reference: `BSP-${String(i + 1).padStart(7, "0")}`,
    title: shape.title(pick(ADJECTIVES)),
    description: `Beispielobjekt (erfundene Daten) in ${city.name}. ${shape.text}`,
    city: city.name,
    postal_code: pick(city.plz),
    property_type,
    transaction_type,
    asked_price: withPrice ? shape.price : null,
    total_rooms: shape.rooms,
    square_meters: shape.sqm,
    latitude: withCoords ? round(city.lat + (rand() - 0.5) * SAMPLE_SPREAD.lat, 6) : null,
    longitude: withCoords ? round(city.lng + (rand() - 0.5) * SAMPLE_SPREAD.lng, 6) : null,
    published_at: status === "draft" ? null : new Date(now - Math.floor(rand() * 120 * 86_400_000)),
    contact: {
      provider_name: "Musterimmobilien GmbH (Beispieldaten)",
      contact_name: contact,
      contact_email: `${contact.toLowerCase().replace(/[^a-z]+/g, ".")}@example.invalid`,
      contact_phone: `+49 30 ${String(1000000 + Math.floor(rand() * 8999999))}`,
    },
  };
}

interface Shape {
  sqm: number;
  rooms: number | null;
  price: number;
  text: string;
  title: (adj: string) => string;
}

type ShapeFn = (rand: () => number, city: City, tx: "buy" | "rent") => Shape;

const SHAPES: Record<SampleListing["property_type"], ShapeFn> = {
  apartment: (rand, city, tx) => {
    const sqm = Math.round(28 + rand() * 112);
    const rooms = Math.max(1, Math.round(sqm / 28 * 2) / 2);
    return {
      sqm,
      rooms,
      price: price(sqm, tx === "buy" ? city.buy : city.rent, rand, tx),
      text: `Wohnung mit ${rooms} Zimmern auf ${sqm} m².`,
      title: (adj) => `${adj} ${fmtRooms(rooms)}-Zimmer-Wohnung in ${city.name}`,
    };
  },
  house: (rand, city, tx) => {
    const sqm = Math.round(90 + rand() * 170);
    const rooms = Math.round(3 + sqm / 45);
    return {
      sqm,
      rooms,
      price: price(sqm, (tx === "buy" ? city.buy : city.rent) * 0.9, rand, tx),
      text: `Haus mit ${rooms} Zimmern und ${sqm} m² Wohnfläche.`,
      title: (adj) => `${adj.replace(/e$/, "es")} Einfamilienhaus in ${city.name}`,
    };
  },
  land: (rand, city, tx) => {
    const sqm = Math.round(300 + rand() * 1200);
    return {
      sqm,
      rooms: null,
      price: tx === "buy" ? price(sqm, city.buy * 0.22, rand, tx) : price(sqm, 0.4, rand, tx),
      text: `Grundstück mit ${sqm} m².`,
      title: () => `Baugrundstück in ${city.name}`,
    };
  },
  commercial: (rand, city, tx) => {
    const sqm = Math.round(60 + rand() * 540);
    return {
      sqm,
      rooms: rand() < 0.5 ? null : Math.round(1 + sqm / 60),
      price: price(sqm, (tx === "buy" ? city.buy : city.rent) * 0.8, rand, tx),
      text: `Gewerbefläche mit ${sqm} m².`,
      title: (adj) => `${adj} Gewerbefläche in ${city.name}`,
    };
  },
};

function price(sqm: number, perSqm: number, rand: () => number, tx: "buy" | "rent"): number {
  const raw = sqm * perSqm * (0.75 + rand() * 0.55);
  return tx === "buy" ? Math.round(raw / 1000) * 1000 : Math.round(raw / 10) * 10;
}

function fmtRooms(rooms: number): string {
  return Number.isInteger(rooms) ? String(rooms) : String(rooms).replace(".", ",");
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
