/**
 * Hamburg's WFS (deegree, namespace prefix `app`): feature type `app:lgv_brw_zoniert_alle`, one feature per
 * zone, use and Jahrgang, geometry in `app:geom_zone`. All Jahrgänge are in one feature type, so a saved answer
 * may hold several Stichtage; the import keeps the newest per zone (`richtwertnummer`).
 *
 * | zone attribute | element |
 * | -------------- | ------- |
 * | land value     | `richtwert_euro` (`normrichtwert`, the value normalised to a standard plot, is not the BRW) |
 * | Stichtag       | `stichtag`, else `abweichender_stichtag`, else 1 January of `jahrgang` |
 * | GFZ            | `geschossfl_zahl` |
 * | use            | `nutzung` (`"W Wohnbaufläche"`, `W`) |
 * | development    | `entwicklungszustand` (`"B Baureifes Land"`) |
 * | zone           | `richtwertnummer` (number), `stadtteil` (shown as its name) |
 * | municipality   | Hamburg, key 02000000 |
 */
import { attribute, blank, type SourceFeature } from "./feature.ts";
import { type AttributeMapping, constant, type ZoneAttributes } from "./layout.ts";

/** The Hamburg mapping. */
export const HAMBURG: AttributeMapping = {
  forType: (type) => type === "lgv_brw_zoniert_alle",
  forAttributes: (f) => attribute(f.attributes, "richtwert_euro") !== undefined,
  read(f: SourceFeature): ZoneAttributes {
    const a = f.attributes;
    return {
      brw: attribute(a, "richtwert_euro"),
      stichtag: stichtag(f),
      gfz: attribute(a, "geschossfl_zahl"),
      nutzung: attribute(a, "nutzung"),
      entwicklung: attribute(a, "entwicklungszustand"),
      zoneName: attribute(a, "stadtteil"),
      zoneNumber: attribute(a, "richtwertnummer"),
      municipalityName: constant("(Hamburg)", "Hamburg"),
      municipalityKey: constant("(Hamburg)", "02000000"),
    };
  },
};

function stichtag(f: SourceFeature) {
  for (const name of ["stichtag", "abweichender_stichtag"]) {
    const s = attribute(f.attributes, name);
    if (s && !blank(s.value)) return s;
  }
  const year = attribute(f.attributes, "jahrgang");
  if (!year || blank(year.value)) return undefined;
  const y = String(year.value).trim();
  return /^\d{4}$/.test(y) ? constant(year.name, `${y}-01-01`) : year;
}
