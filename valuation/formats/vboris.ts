/**
 * VBORIS short names (the exchange format of the expert committees): Brandenburg's pipe-delimited CSV, GeoJSON
 * exports and the dBase table of the NRW open-data shapefile. Attribute names in any case:
 *
 * | zone attribute   | names                                                    |
 * | ---------------- | -------------------------------------------------------- |
 * | land value       | `BRW` (also text with a decimal comma, `"1250,5"`)       |
 * | Stichtag         | `STAG` (ISO, `DD.MM.YYYY`, or a dBase date)              |
 * | GFZ / WGFZ       | `GFZ`, `WGFZ` (decimal comma allowed)                    |
 * | use              | `NUTA`, else `ART`                                       |
 * | development      | `ENTW`                                                   |
 * | zone             | `BRZNAME` (name), `WNUM`, else `BRWZNR` (number)         |
 * | municipality     | `GENA` (name); the key `GESL` or `GASL`, whichever has eight digits |
 */
import { attribute, blank, type SourceFeature } from "./feature.ts";
import type { AttributeMapping, ZoneAttributes } from "./layout.ts";

/** The VBORIS mapping. */
export const VBORIS: AttributeMapping = {
  forType: () => false,
  forAttributes: (f) => attribute(f.attributes, "BRW") !== undefined,
  read(f: SourceFeature): ZoneAttributes {
    const a = f.attributes;
    const nuta = attribute(a, "NUTA");
    return {
      brw: attribute(a, "BRW"),
      stichtag: attribute(a, "STAG"),
      gfz: attribute(a, "GFZ"),
      wgfz: attribute(a, "WGFZ"),
      nutzung: nuta && !blank(nuta.value) ? nuta : attribute(a, "ART"),
      entwicklung: attribute(a, "ENTW"),
      zoneName: attribute(a, "BRZNAME"),
      zoneNumber: attribute(a, "WNUM", "BRWZNR"),
      municipalityName: attribute(a, "GENA"),
      municipalityKey: municipalityKey(f),
    };
  },
};

/** GESL or GASL: the one that is an eight-digit AGS, else whichever is filled (GASL first). */
function municipalityKey(f: SourceFeature) {
  const candidates = ["GASL", "GESL"].map((n) => attribute(f.attributes, n)).filter((c) =>
    c && !blank(c.value)
  );
  const ags = candidates.find((c) => /^\d{8}$/.test(String(c!.value).trim()));
  return ags ?? candidates[0];
}
