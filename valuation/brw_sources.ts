/**
 * Where official land values come from and under which licence, and how a value names them where it is shown.
 *
 * Defaults per state, used when `brw:import` gets no `--source`, `--source-url` or `--licence` (read in the
 * states' service descriptions; an operator with other terms names them on the command line):
 *
 * | state | licence        | publisher named by default                                        |
 * | ----- | -------------- | ----------------------------------------------------------------- |
 * | BB    | dl-de/by-2-0   | Gutachterausschüsse für Grundstückswerte im Land Brandenburg (LGB) |
 * | NI    | dl-de/by-2-0   | Gutachterausschüsse für Grundstückswerte in Niedersachsen (LGLN)  |
 * | HB    | dl-de/by-2-0   | Gutachterausschuss für Grundstückswerte in Bremen                |
 * | HH    | dl-de/by-2-0   | Freie und Hansestadt Hamburg, LGV, Gutachterausschuss             |
 * | TH    | dl-de/by-2-0   | Gutachterausschüsse für Grundstückswerte in Thüringen (TLBG)      |
 * | HE    | dl-de/zero-2-0 | HVBG, Zentrale Geschäftsstelle der Gutachterausschüsse Hessen     |
 * | BE    | dl-de/zero-2-0 | Gutachterausschuss für Grundstückswerte in Berlin                 |
 * | NW    | dl-de/zero-2-0 | Gutachterausschüsse für Grundstückswerte in NRW (BORIS.NRW)       |
 *
 * Other states that release values (MV, SN, ST, RP) need `--source` and `--licence`; BW, SL, SH and BY are refused
 * (`valuation/brw_import.ts`). Where a land value is shown it carries "Datenquelle: <source>, <licence>" — what
 * dl-de/by-2-0 requires (naming the provider and the licence) and what dl-de/zero-2-0 allows.
 */
import type { StateCode } from "./states.ts";

/** The marker of invented data (our fixtures and sample zones). */
export const INVENTED_MARKER = "ERFUNDENE TESTDATEN";

/** Source and licence of a dataset. */
export interface DatasetSource {
  source: string;
  sourceUrl: string | null;
  licence: string;
}

/** The default source and licence of the states that publish their land values openly. */
export const STATE_SOURCES: Readonly<Partial<Record<StateCode, DatasetSource>>> = {
  BB: {
    source: "Gutachterausschüsse für Grundstückswerte im Land Brandenburg (LGB)",
    sourceUrl: "https://ogc-api.geobasis-bb.de/boris",
    licence: "dl-de/by-2-0",
  },
  NI: {
    source: "Gutachterausschüsse für Grundstückswerte in Niedersachsen (LGLN)",
    sourceUrl: "https://opendata.lgln.niedersachsen.de/doorman/noauth/boris_wfs",
    licence: "dl-de/by-2-0",
  },
  HB: {
    source: "Gutachterausschuss für Grundstückswerte in Bremen",
    sourceUrl: "https://opendata.lgln.niedersachsen.de/doorman/noauth/borishb_wfs",
    licence: "dl-de/by-2-0",
  },
  HH: {
    source:
      "Freie und Hansestadt Hamburg, Landesbetrieb Geoinformation und Vermessung, Gutachterausschuss für Grundstückswerte",
    sourceUrl: "https://geodienste.hamburg.de/HH_WFS_Bodenrichtwerte",
    licence: "dl-de/by-2-0",
  },
  TH: {
    source: "Gutachterausschüsse für Grundstückswerte in Thüringen (TLBG)",
    sourceUrl: "https://www.geoproxy.geoportal-th.de/geoproxy/services/boris/vBORIS_simple_wfs",
    licence: "dl-de/by-2-0",
  },
  HE: {
    source: "Hessische Verwaltung für Bodenmanagement und Geoinformation (HVBG), BORIS Hessen",
    sourceUrl: "https://www.gds.hessen.de/wfs2/boris/cgi-bin/brw/2024/wfs",
    licence: "dl-de/zero-2-0",
  },
  BE: {
    source: "Gutachterausschuss für Grundstückswerte in Berlin",
    sourceUrl: "https://gdi.berlin.de/services/wfs/brw2025",
    licence: "dl-de/zero-2-0",
  },
  NW: {
    source: "Gutachterausschüsse für Grundstückswerte in NRW (BORIS.NRW)",
    sourceUrl: "https://www.opengeodata.nrw.de/produkte/infrastruktur_bauen_wohnen/boris/BRW/",
    licence: "dl-de/zero-2-0",
  },
};

/** The source and licence of invented data. */
export const INVENTED_SOURCE = {
  licence: "erfundene Daten, keine Lizenz nötig",
  source: (what: string) => `${INVENTED_MARKER}: Beispieldaten (${what})`,
} as const;

/** The texts of the licences we know, by identifier. */
const LICENCE_URLS: Readonly<Record<string, string>> = {
  "dl-de/by-2-0": "https://www.govdata.de/dl-de/by-2-0",
  "dl-de/zero-2-0": "https://www.govdata.de/dl-de/zero-2-0",
  "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
};

/** How a shown land value names its origin. */
export interface Attribution {
  source: string;
  sourceUrl: string | null;
  licence: string;
  /** The licence text's address, for the licences we know. */
  licenceUrl: string | null;
  /** "Datenquelle: <source>, <licence>". */
  text: string;
}

/** The attribution of a value from `source` under `licence`. */
export function attributionOf(s: DatasetSource): Attribution {
  return {
    ...s,
    licenceUrl: LICENCE_URLS[s.licence.trim().toLowerCase()] ?? null,
    text: `Datenquelle: ${s.source}, ${s.licence}`,
  };
}

/** Whether a source names invented data. */
export function isInvented(source: string): boolean {
  return source.includes(INVENTED_MARKER);
}
