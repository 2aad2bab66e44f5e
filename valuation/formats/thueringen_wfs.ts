/**
 * Thüringen's WFS `vBORIS_simple_wfs` (GeoProxy Thüringen): feature type `boris:bodenrichtwertzone`, upper-case
 * elements, geometry in `GEOM`, every Stichtag since 2008 in one feature type (the import keeps the newest per
 * zone: municipality and `BODENRICHTWERTNUMMER`).
 *
 * | zone attribute | element |
 * | -------------- | ------- |
 * | land value     | `BODENRICHTWERT` |
 * | Stichtag       | `STICHTAG` |
 * | GFZ            | `GFZ`, `WGFZ`, `GESCHOSSFLAECHENZAHL` |
 * | use            | `NUTZUNGSART` (`W`, `"Wohnbaufläche (W)"`, a code) |
 * | development    | `ENTWICKLUNGSZUSTAND` (`B`, `1000`, `"Baureifes Land"`) |
 * | zone           | `BODENRICHTWERTZONENAME`, `BODENRICHTWERTNUMMER` |
 * | municipality   | `GEMEINDENAME`; `GEMEINDE` is the eight-digit key (a name there counts as the name) |
 */
import { attribute, blank, type SourceFeature } from "./feature.ts";
import type { AttributeMapping, ZoneAttributes } from "./layout.ts";

/** The Thüringen mapping. */
export const THUERINGEN: AttributeMapping = {
  forType: (type) => type === "bodenrichtwertzone",
  forAttributes: (f) => attribute(f.attributes, "BODENRICHTWERT") !== undefined,
  read(f: SourceFeature): ZoneAttributes {
    const a = f.attributes;
    const gemeinde = attribute(a, "GEMEINDE");
    const isKey = gemeinde !== undefined && /^\s*\d+\s*$/.test(String(gemeinde.value ?? ""));
    const name = attribute(a, "GEMEINDENAME");
    return {
      brw: attribute(a, "BODENRICHTWERT"),
      stichtag: attribute(a, "STICHTAG"),
      gfz: attribute(a, "GFZ", "GESCHOSSFLAECHENZAHL"),
      wgfz: attribute(a, "WGFZ"),
      nutzung: attribute(a, "NUTZUNGSART", "NUTZUNG"),
      entwicklung: attribute(a, "ENTWICKLUNGSZUSTAND"),
      zoneName: attribute(a, "BODENRICHTWERTZONENAME"),
      zoneNumber: attribute(a, "BODENRICHTWERTNUMMER"),
      municipalityName: name && !blank(name.value) ? name : isKey ? undefined : gemeinde,
      municipalityKey: isKey ? gemeinde : attribute(a, "GEMEINDESCHLUESSEL", "AGS"),
    };
  },
};
