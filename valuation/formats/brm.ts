/**
 * The AdV's Bodenrichtwert model (BRM): `boris:BR_BodenrichtwertZonal` in WFS 2.0 / GML 3.2 answers of Hessen,
 * Niedersachsen and Bremen (BRM 2.1, namespace `http://www.adv-online.de/namespaces/adv/brm/2.1`; the LGLN
 * services also answer in `…/adv/boris/2.0`), and the nested JSON of Brandenburg's OGC API Features collection
 * `br_bodenrichtwert` (BRM 3.0.1). Paths leave out the GML object elements (`gemeinde/BR_Gemeinde/name` is
 * `gemeinde/name`), so one mapping reads both:
 *
 * | zone attribute | paths |
 * | -------------- | ----- |
 * | land value     | `bodenrichtwert` (with `uom`) |
 * | Stichtag       | `stichtag` |
 * | WGFZ           | `wertrelevanteGeschossflaechenzahl/wert` (GML: `…/BR_WertOderWertespanneDezimalzahl/wert`), or the number itself |
 * | GFZ            | `geschossflaechenzahl/wert` |
 * | use            | `nutzung/art` (`W`, `"Wohnbaufläche (W)"` or a BR_Art_Nutzung code) |
 * | development    | `entwicklungszustand` (`B`, `"Baureifes Land (B)"`, `1000`) |
 * | zone           | `bodenrichtwertzoneName`, `bodenrichtwertNummer` |
 * | municipality   | `gemeinde/name` or `gemeinde/bezeichnung`; key `gemeinde/schluesselGesamt`, else the parts `gemeinde/kennzeichen/{land, regierungsbezirk, kreis, gemeinde}` (JSON: `gemeinde/gemeindekennzeichen/…`) |
 *
 * Bremen's features name no municipality (only the key 04…); the committee's `gutachterausschuss/bezeichnung`
 * ("Gutachterausschuss für Grundstückswerte in Bremen") gives it then.
 */
import { type Attribute, attribute, blank, type SourceFeature } from "./feature.ts";
import { type AttributeMapping, constant, type ZoneAttributes } from "./layout.ts";

/** The BRM mapping (2.1 GML and 3.0.1 JSON). */
export const BRM: AttributeMapping = {
  forType: (type) => type === "BR_BodenrichtwertZonal" || type === "BR_Bodenrichtwert",
  forAttributes: (f) =>
    attribute(f.attributes, "bodenrichtwert") !== undefined &&
    attribute(f.attributes, "stichtag") !== undefined,
  read(f: SourceFeature): ZoneAttributes {
    const a = f.attributes;
    return {
      brw: attribute(a, "bodenrichtwert"),
      stichtag: attribute(a, "stichtag"),
      wgfz: attribute(a, "wertrelevanteGeschossflaechenzahl/wert", "wertrelevanteGeschossflaechenzahl"),
      gfz: attribute(a, "geschossflaechenzahl/wert", "geschossflaechenzahl"),
      nutzung: attribute(a, "nutzung/art", "nutzung"),
      entwicklung: attribute(a, "entwicklungszustand"),
      zoneName: attribute(a, "bodenrichtwertzoneName"),
      zoneNumber: attribute(a, "bodenrichtwertNummer"),
      municipalityName: municipalityName(f),
      municipalityKey: municipalityKey(f),
    };
  },
};

function municipalityName(f: SourceFeature): Attribute | undefined {
  const name = attribute(f.attributes, "gemeinde/name", "gemeinde/bezeichnung");
  if (name && !blank(name.value)) return name;
  const committee = attribute(f.attributes, "gutachterausschuss/bezeichnung");
  const place = committee &&
    /\bin\s+(?:der\s+|dem\s+|den\s+)?(?:Stadt\s+|Freien\s+Hansestadt\s+)?(.+)$/i.exec(
      String(committee.value).trim(),
    )?.[1];
  return place ? constant(committee!.name, place) : name;
}

const KEY_PARTS: ReadonlyArray<readonly [string, number]> = [
  ["land", 2],
  ["regierungsbezirk", 1],
  ["kreis", 2],
  ["gemeinde", 3],
];

function municipalityKey(f: SourceFeature): Attribute | undefined {
  const whole = attribute(f.attributes, "gemeinde/schluesselGesamt");
  if (whole && !blank(whole.value)) return whole;
  for (const base of ["gemeinde/kennzeichen", "gemeinde/gemeindekennzeichen"]) {
    const parts = KEY_PARTS.map(([p, width]) => [attribute(f.attributes, `${base}/${p}`), width] as const);
    if (parts.some(([p]) => p === undefined || blank(p.value))) continue;
    const digits = parts.map(([p, width]) => String(p!.value).trim().padStart(width, "0")).join("");
    return constant(`${base}/…`, digits);
  }
  return undefined;
}
