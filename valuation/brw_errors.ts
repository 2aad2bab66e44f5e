/**
 * Why an import of a land-value file failed, as typed data: a problem code with its fields and where in the file
 * it happened. A failed import changes nothing; the task renders the error to text (`tasks/brw_messages.ts`).
 */
import { AppError } from "../errors.ts";

/** What went wrong. */
export type BrwProblem =
  /** The file is not one of the layouts `brw:import` reads. */
  | { code: "unknown_layout"; start: string }
  /** The file ends in the middle of the data (cut off). */
  | { code: "truncated" }
  /** A syntax error; `detail` is the parser's own message. */
  | { code: "malformed"; detail: string }
  /** The text is not in the encoding it declares. */
  | { code: "bad_encoding"; encoding: string }
  /** A ZIP without a part the layout needs (e.g. the `.dbf` of a shapefile). */
  | { code: "missing_part"; part: string }
  /** The `.shp` and `.dbf` of a shapefile hold different numbers of records. */
  | { code: "part_mismatch"; shapes: number; records: number }
  /** A feature of another type than the file's first one. */
  | { code: "unexpected_feature"; found: string; expected: string }
  /** A feature without a polygon geometry. */
  | { code: "missing_geometry" }
  /** A geometry that is not a valid polygon or multipolygon; `detail` names the defect. */
  | { code: "bad_geometry"; detail: string }
  /** A CRS other than EPSG:25832, EPSG:25833 and EPSG:4326. */
  | { code: "unsupported_crs"; crs: string }
  /** Neither the file nor the command line names the CRS. */
  | { code: "crs_unknown" }
  /** The file names another CRS than `--crs`. */
  | { code: "crs_conflict"; declared: string; given: string }
  /** The coordinates, read in `crs`, do not lie in the state: a wrong CRS or axis order. */
  | { code: "crs_mismatch"; crs: string; state: string; lng: number; lat: number }
  /** A required attribute is missing. */
  | { code: "missing_field"; field: string }
  /** An attribute with a value that is not what it must be. */
  | { code: "bad_value"; field: string; value: string; expected: string }
  /** The state has no default licence and the command line names none (or no source). */
  | { code: "no_licence"; state: string }
  /** The file holds no zone with a land value. */
  | { code: "no_zones"; features: number }
  /** The state already has a dataset of a later Stichtag; importing an older one needs `--allow-older`. */
  | { code: "older_stichtag"; stichtag: string; active: string; dataset: string };

/** The code of a {@linkcode BrwProblem}. */
export type BrwProblemCode = BrwProblem["code"];

/** Where a problem is: the file, and the feature (0-based index and id) or the line. */
export interface BrwLocation {
  file?: string;
  /** 0-based index of the feature in the file. */
  feature?: number;
  /** The feature's id in the file (gml:id, GeoJSON id, zone number). */
  id?: string;
  /** 1-based line in a text file. */
  line?: number;
}

/** The failure of an import: code `invalid_request` with the typed problem and its location. */
export class BrwImportError extends AppError {
  override name = "BrwImportError";
  /** What went wrong. */
  readonly problem: BrwProblem;
  /** Where. */
  readonly at: BrwLocation;

  /** An error for `problem` at `at`. */
  constructor(problem: BrwProblem, at: BrwLocation = {}) {
    super("invalid_request");
    this.problem = problem;
    this.at = at;
  }

  /** The same error with the file named (added where the file is known). */
  inFile(file: string): BrwImportError {
    return this.at.file === undefined ? new BrwImportError(this.problem, { file, ...this.at }) : this;
  }
}

/** Throws a {@linkcode BrwImportError}. */
export function fail(problem: BrwProblem, at: BrwLocation = {}): never {
  throw new BrwImportError(problem, at);
}
