/**
 * Assembling polygons from the GML of a WFS answer while it streams past: GML 3.2 and 3.1 (`Polygon`,
 * `MultiSurface`, `Surface` with `PolygonPatch`es, `CompositeSurface`, rings as `LinearRing` with `posList` or
 * `pos`, or as `Ring` of `curveMember` curves with `LineStringSegment`s) and GML 2 (`MultiPolygon`,
 * `outerBoundaryIs`/`innerBoundaryIs`, `coordinates`). Arc segments are kept as their control points (a
 * polygonal approximation). `srsName` and `srsDimension` are inherited from the outer elements.
 */
import { crsRef } from "../crs.ts";
import { fail } from "../brw_errors.ts";
import type { SourceGeometry, SourcePolygons, SourcePosition } from "./feature.ts";

/** The GML namespaces (3.2, and 2 / 3.1). */
export const GML_NAMESPACES: ReadonlySet<string> = new Set([
  "http://www.opengis.net/gml/3.2",
  "http://www.opengis.net/gml",
]);

/** Geometry elements that start a (multi)surface. */
const SURFACE_ROOTS = new Set(["Polygon", "MultiSurface", "MultiPolygon", "Surface", "CompositeSurface"]);
/** Geometry elements of any kind: a root that is not a surface is skipped. */
const GEOMETRY_ROOTS = new Set([
  ...SURFACE_ROOTS,
  "Point",
  "MultiPoint",
  "LineString",
  "MultiLineString",
  "MultiCurve",
  "Curve",
  "MultiGeometry",
  "GeometryCollection",
  "Envelope",
  "Box",
]);

/** Whether a GML element of this local name starts a geometry. */
export function isGeometryRoot(local: string): boolean {
  return GEOMETRY_ROOTS.has(local);
}

/** Reads one geometry element and its descendants from SAX events. */
export class GmlGeometryBuilder {
  readonly #polygons: SourcePolygons = [];
  #polygon: SourcePosition[][] | undefined;
  #ring: SourcePosition[] | undefined;
  #text = "";
  #collecting: "posList" | "pos" | "coordinates" | undefined;
  readonly #srs: Array<string | undefined> = [];
  readonly #dims: Array<number | undefined> = [];
  #srsName: string | undefined;
  readonly surface: boolean;

  /** Starts with the geometry root element (`local` name and its attributes by local name). */
  constructor(local: string, attrs: Record<string, string>) {
    this.surface = SURFACE_ROOTS.has(local);
    this.open(local, attrs);
  }

  /** An element opens inside the geometry. */
  open(local: string, attrs: Record<string, string>): void {
    this.#srs.push(attrs.srsName ?? this.#srs.at(-1));
    const dim = attrs.srsDimension !== undefined ? Number(attrs.srsDimension) : undefined;
    this.#dims.push(dim ?? this.#dims.at(-1));
    if (attrs.srsName !== undefined) this.#srsName ??= attrs.srsName;
    if (!this.surface) return;
    if (local === "Polygon" || local === "PolygonPatch") this.#polygon = [];
    else if (["exterior", "interior", "outerBoundaryIs", "innerBoundaryIs"].includes(local)) this.#ring = [];
    else if (local === "posList" || local === "pos" || local === "coordinates") {
      this.#collecting = local;
      this.#text = "";
    }
  }

  /** Text inside the geometry. */
  text(t: string): void {
    if (this.#collecting) this.#text += t;
  }

  /** An element closes; returns true when it was the geometry root. */
  close(local: string, attrs: Record<string, string>): boolean {
    if (this.surface) this.#closeSurfacePart(local, attrs);
    this.#srs.pop();
    this.#dims.pop();
    return this.#srs.length === 0;
  }

  #closeSurfacePart(local: string, attrs: Record<string, string>): void {
    if (local === this.#collecting) {
      const dim = attrs.srsDimension !== undefined ? Number(attrs.srsDimension) : this.#dims.at(-1) ?? 2;
      const positions = local === "coordinates" ? coordinates(this.#text, attrs) : numbers(this.#text, dim);
      if (!this.#ring) fail({ code: "bad_geometry", detail: `${local} outside a ring` });
      appendPositions(this.#ring, positions);
      this.#collecting = undefined;
      this.#text = "";
    } else if (["exterior", "interior", "outerBoundaryIs", "innerBoundaryIs"].includes(local)) {
      if (!this.#polygon) fail({ code: "bad_geometry", detail: `${local} outside a polygon` });
      if (local === "exterior" || local === "outerBoundaryIs") this.#polygon.unshift(this.#ring ?? []);
      else this.#polygon.push(this.#ring ?? []);
      this.#ring = undefined;
    } else if (local === "Polygon" || local === "PolygonPatch") {
      if (this.#polygon && this.#polygon.length > 0) this.#polygons.push(this.#polygon);
      this.#polygon = undefined;
    }
  }

  /** The polygons read, with the CRS the geometry names; undefined for a geometry without polygons. */
  result(): SourceGeometry | undefined {
    if (!this.surface || this.#polygons.length === 0) return undefined;
    const name = this.#srsName;
    if (name === undefined) return { polygons: this.#polygons };
    const crs = crsRef(name);
    if (!crs) fail({ code: "unsupported_crs", crs: name });
    return { polygons: this.#polygons, crs };
  }
}

/** A ring built from several curve segments repeats each joint position once. */
function appendPositions(ring: SourcePosition[], positions: SourcePosition[]): void {
  const last = ring.at(-1);
  const first = positions[0];
  const start = last && first && last[0] === first[0] && last[1] === first[1] ? 1 : 0;
  for (let i = start; i < positions.length; i++) ring.push(positions[i]!);
}

/** `posList`/`pos` text: numbers separated by white space, `dim` per position (Z and M dropped). */
function numbers(text: string, dim: number): SourcePosition[] {
  if (!Number.isInteger(dim) || dim < 2 || dim > 4) {
    fail({ code: "bad_geometry", detail: `srsDimension ${dim} is not 2, 3 or 4` });
  }
  const parts = text.trim().split(/\s+/);
  if (parts.length % dim !== 0 || parts[0] === "") {
    fail({ code: "bad_geometry", detail: `a coordinate list of ${parts.length} numbers is not in ${dim}s` });
  }
  const out: SourcePosition[] = [];
  for (let i = 0; i < parts.length; i += dim) out.push([coordinate(parts[i]!), coordinate(parts[i + 1]!)]);
  return out;
}

function coordinate(s: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || s === "") {
    fail({ code: "bad_geometry", detail: `${JSON.stringify(s)} is not a number` });
  }
  return n;
}

/** GML 2 `coordinates`: tuples separated by `ts` (white space), ordinates by `cs` (`,`), decimal point `decimal`. */
function coordinates(text: string, attrs: Record<string, string>): SourcePosition[] {
  const cs = attrs.cs ?? ",";
  const decimal = attrs.decimal ?? ".";
  const tuples = attrs.ts && attrs.ts.trim() !== "" ? text.trim().split(attrs.ts) : text.trim().split(/\s+/);
  return tuples.filter((t) => t.trim() !== "").map((t) => {
    const [x, y] = t.trim().split(cs).map((v) =>
      coordinate(decimal === "." ? v : v.split(decimal).join("."))
    );
    if (x === undefined || y === undefined) {
      fail({ code: "bad_geometry", detail: "a tuple with fewer than two ordinates" });
    }
    return [x, y] as SourcePosition;
  });
}
