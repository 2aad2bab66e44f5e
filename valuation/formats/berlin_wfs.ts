/**
 * Berlin's WFS (GeoServer of the Geoportal Berlin): one feature type per Stichtag, `brw2025:brw_2025_vector`
 * (`brwYYYY:brw_YYYY_vector`; also spelled `brwYYYY_vector`), geometry in `geom`. Lower-case attributes:
 *
 * | zone attribute | element |
 * | -------------- | ------- |
 * | land value     | `brw` |
 * | Stichtag       | `stichtag`, else 1 January of the year in the feature type's name |
 * | GFZ            | `gfz`, `wgfz` |
 * | use            | `nutzung` (`W`, `"W - Wohngebiet"`, `MI`, …) |
 * | development    | `entwicklungszustand`, `entw` |
 * | zone           | `brwznr`, `zonennr`, `nummer` (number); `ortsteil`, `bezirk` (shown as its name) |
 * | municipality   | Berlin, key 11000000 |
 */
import { attribute, type SourceFeature } from "./feature.ts";
import { type AttributeMapping, constant, type ZoneAttributes } from "./layout.ts";

const TYPE = /^brw_?(\d{4})_?vector$/i;

/** The Berlin mapping. */
export const BERLIN: AttributeMapping = {
  forType: (type) => TYPE.test(type),
  forAttributes: (f) =>
    attribute(f.attributes, "brw") !== undefined && attribute(f.attributes, "nutzung") !== undefined &&
    attribute(f.attributes, "stag") === undefined,
  read(f: SourceFeature): ZoneAttributes {
    const a = f.attributes;
    const year = f.type ? TYPE.exec(f.type)?.[1] : undefined;
    return {
      brw: attribute(a, "brw"),
      stichtag: attribute(a, "stichtag") ?? (year ? constant(`(${f.type})`, `${year}-01-01`) : undefined),
      gfz: attribute(a, "gfz"),
      wgfz: attribute(a, "wgfz"),
      nutzung: attribute(a, "nutzung"),
      entwicklung: attribute(a, "entwicklungszustand", "entw"),
      zoneName: attribute(a, "ortsteil", "bezirk"),
      zoneNumber: attribute(a, "brwznr", "zonennr", "nummer"),
      municipalityName: constant("(Berlin)", "Berlin"),
      municipalityKey: constant("(Berlin)", "11000000"),
    };
  },
};
