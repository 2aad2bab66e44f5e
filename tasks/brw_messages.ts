/** The texts of `brw:import` and `brw:datasets`: a failed import's typed error, rendered for the operator. */
import type { BrwImportError, BrwLocation, BrwProblem } from "../valuation/brw_errors.ts";
import { SUPPORTED_CRS } from "../valuation/crs.ts";

/** "bw_2024.gml, feature 3 (id DEHE…), line 120" — the parts that are known. */
export function locationText(at: BrwLocation): string {
  const parts: string[] = [];
  if (at.file !== undefined) parts.push(at.file);
  if (at.feature !== undefined) {
    parts.push(`feature ${at.feature}${at.id !== undefined ? ` (id ${at.id})` : ""}`);
  } else if (at.id !== undefined) parts.push(`feature id ${at.id}`);
  if (at.line !== undefined) parts.push(`line ${at.line}`);
  return parts.join(", ");
}

/** The reason, in words. */
export function problemText(p: BrwProblem): string {
  switch (p.code) {
    case "unknown_layout":
      return `not a land-value layout brw:import reads (found ${p.start})`;
    case "truncated":
      return "the file ends in the middle of the data (cut off?)";
    case "malformed":
      return `broken: ${p.detail}`;
    case "bad_encoding":
      return `the text is not valid ${p.encoding}`;
    case "missing_part":
      return `the ZIP has no ${p.part}`;
    case "part_mismatch":
      return `the .shp holds ${p.shapes} shapes but the .dbf ${p.records} records`;
    case "unexpected_feature":
      return `a feature of type ${p.found} among ${p.expected} features`;
    case "missing_geometry":
      return "the feature has no polygon geometry";
    case "bad_geometry":
      return `the geometry is not a valid polygon: ${p.detail}`;
    case "unsupported_crs":
      return `CRS ${JSON.stringify(p.crs)} is not one of ${SUPPORTED_CRS.join(", ")}`;
    case "crs_unknown":
      return "the file names no CRS: give it with --crs (e.g. --crs EPSG:25832)";
    case "crs_conflict":
      return `the file declares ${p.declared} but --crs says ${p.given}`;
    case "crs_mismatch":
      return `read as ${p.crs} the coordinates lie outside ${p.state} (first point ${p.lng.toFixed(5)}, ` +
        `${p.lat.toFixed(5)} as lon, lat): a wrong CRS or axis order? Name the right one with --crs`;
    case "missing_field":
      return `${p.field} is missing`;
    case "bad_value":
      return `${p.field} is not ${p.expected}: ${JSON.stringify(p.value)}`;
    case "no_licence":
      return `${p.state}: no default source and licence are known; name them with --source "…" --licence "…"`;
    case "no_zones":
      return `no zone with a land value among ${p.features} features`;
    case "older_stichtag":
      return `its Stichtag ${p.stichtag} is older than the active dataset ${p.dataset} (Stichtag ${p.active}); ` +
        "--allow-older replaces it anyway";
  }
}

/** "<where>: <why>" for a failed import. */
export function importErrorText(e: BrwImportError): string {
  const where = locationText(e.at);
  return where ? `${where}: ${problemText(e.problem)}` : problemText(e.problem);
}
