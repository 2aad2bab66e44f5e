/**
 * What a layout is: the rules that turn one state's attribute names into the attributes of a zone. The readers
 * deliver features; the layout of a file is chosen from its first feature (`layouts.ts`).
 */
import type { Attribute, SourceFeature } from "./feature.ts";

/** The layouts `brw:import` reads (the `layout` recorded with every dataset). */
export type LayoutId =
  | "vboris_csv"
  | "vboris_geojson"
  | "brm_gml"
  | "brm_json"
  | "hamburg_wfs"
  | "berlin_wfs"
  | "thueringen_wfs"
  | "nrw_shape";

/** The attributes of a zone as found in a feature, under the file's own names (undefined: not there). */
export interface ZoneAttributes {
  /** Land value, euro per m². */
  brw: Attribute | undefined;
  stichtag: Attribute | undefined;
  gfz?: Attribute | undefined;
  wgfz?: Attribute | undefined;
  /** Use (NUTA, art, Nutzung). */
  nutzung?: Attribute | undefined;
  /** Development state (ENTW, Entwicklungszustand). */
  entwicklung?: Attribute | undefined;
  zoneName?: Attribute | undefined;
  zoneNumber?: Attribute | undefined;
  municipalityName?: Attribute | undefined;
  municipalityKey?: Attribute | undefined;
}

/** The attribute mapping of one family of files. */
export interface AttributeMapping {
  /** Whether a feature of this WFS feature type (local name) belongs to the mapping. */
  forType(type: string): boolean;
  /** Whether a feature without a type (JSON, dBase, CSV) belongs to it, by its attribute names. */
  forAttributes(feature: SourceFeature): boolean;
  /** The zone attributes of a feature. */
  read(feature: SourceFeature): ZoneAttributes;
}

/** A constant attribute (a city state's municipality), named so that messages show where it came from. */
export function constant(name: string, value: string): Attribute {
  return { name, value };
}
