/**
 * A feature as a file reader hands it on: its position in the file, its attributes by name, and its polygons in
 * the file's coordinates. Readers (`xml_features.ts`, `json_features.ts`, `csv_features.ts`, `shape_zip.ts`)
 * know syntax only; the layouts (`layouts.ts`) know which attribute means what.
 */
import type { CrsRef } from "../crs.ts";
import type { BrwLocation } from "../brw_errors.ts";

/** An attribute value as a file holds it (dBase dates arrive as `Date`). */
export type Scalar = string | number | boolean | Date | null;

/** One attribute: its name as written in the file and its value. */
export interface Attribute {
  name: string;
  value: Scalar;
}

/**
 * Attributes keyed by their lower-case path: a nested attribute is `parent/child` (`nutzung/art`), GML object
 * elements between properties left out (`gemeinde/BR_Gemeinde/name` is `gemeinde/name`). The first value of a
 * repeated path wins.
 */
export type Attributes = Map<string, Attribute>;

/** A position in the file's axis order. */
export type SourcePosition = [number, number];

/** Polygons in the file's coordinates: polygon → rings (outer first, then holes) → positions. */
export type SourcePolygons = SourcePosition[][][];

/** A feature's geometry before conversion. */
export interface SourceGeometry {
  polygons: SourcePolygons;
  /** The CRS the file names for this geometry (GML `srsName`, GeoJSON `crs`, `.prj`, CSV `EPSG`), if any. */
  crs?: CrsRef | undefined;
}

/** A feature read from a file. */
export interface SourceFeature {
  /** 0-based index among the file's features. */
  index: number;
  /** 1-based line where the feature starts (text files). */
  line?: number;
  /** Its id in the file (gml:id, GeoJSON id), if any. */
  id?: string;
  /** Its type (the local name of a WFS feature element), if the format has types. */
  type?: string;
  attributes: Attributes;
  /** Undefined when the feature has no polygon geometry. */
  geometry: SourceGeometry | undefined;
}

/** Where a feature is, for errors. */
export function locationOf(f: SourceFeature): BrwLocation {
  const at: BrwLocation = { feature: f.index };
  if (f.id !== undefined) at.id = f.id;
  if (f.line !== undefined) at.line = f.line;
  return at;
}

/** Adds an attribute unless its path is already there. */
export function setAttribute(attributes: Attributes, path: string, value: Scalar): void {
  const key = path.toLowerCase();
  if (!attributes.has(key)) attributes.set(key, { name: path, value });
}

/** The first attribute present among `paths` (any case), or undefined. */
export function attribute(attributes: Attributes, ...paths: string[]): Attribute | undefined {
  for (const p of paths) {
    const a = attributes.get(p.toLowerCase());
    if (a !== undefined) return a;
  }
  return undefined;
}

/** Whether `value` carries nothing (null, an empty or blank string). */
export function blank(value: Scalar | undefined): boolean {
  return value === null || value === undefined || (typeof value === "string" && value.trim() === "");
}
