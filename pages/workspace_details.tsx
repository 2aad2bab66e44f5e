/**
 * The listing details in the workspace's listing form (issue 31, docs/contract.md §4.14): the public description,
 * the costs, floor and availability, and the energy certificate, grouped, with German labels; the fields an advert
 * must carry when an energy certificate exists (GEG §87) are marked. Reads the form's values into the stock
 * fields (numbers German or English style) and names the wrong ones; the rules live in
 * `catalogue/listing_details.ts`.
 */
import { formDecimal, numberOfInput } from "../catalogue/german.ts";
import {
  ENERGY_CERTIFICATE_TYPES,
  ENERGY_CLASSES,
  GEG_ADVERT_FIELDS,
  type ListingDetails,
  PUBLIC_DESCRIPTION_MAX,
} from "../catalogue/listing_details.ts";
import { catalogue, type Lang, pick, type TextPair } from "./i18n.ts";
import TEXTS_JSON from "./texts/workspace_details.json" with { type: "json" };
import { bad, type FormProblem, Opt, w, type WsKey } from "./workspace_common.tsx";

const TEXTS = catalogue(TEXTS_JSON, "pages/texts/workspace_details.json");

/** The detail fields of the form (their labels are workspace texts of the same name). */
const FIELDS = [
  "public_description",
  "warm_rent",
  "service_charges",
  "deposit",
  "floor",
  "available_from",
  "energy_certificate_type",
  "energy_value",
  "energy_class",
  "energy_carrier",
  "construction_year",
  "energy_certificate_valid_until",
] as const satisfies ReadonlyArray<keyof ListingDetails & WsKey>;
type DetailField = (typeof FIELDS)[number];
const NUMBERS = ["warm_rent", "service_charges", "deposit", "energy_value"] as const;
const WHOLE = ["floor", "construction_year"] as const;
const LINES = ["available_from", "energy_carrier", "energy_certificate_valid_until"] as const;
const CHOICES = ["energy_certificate_type", "energy_class"] as const;

const say = (l: Lang, pair: TextPair) => pick(pair, l);

/** The form values of a listing's details, as strings (numbers the German or English way of the page). */
export function detailValues(d: ListingDetails | undefined, l: Lang = "de"): Record<string, string> {
  if (!d) return {};
  const out: Record<string, string> = {};
  for (const k of FIELDS) {
    const v = d[k];
    out[k] = v === null
      ? ""
      : typeof v === "number" && k !== "floor" && k !== "construction_year"
      ? formDecimal(v, l)
      : String(v);
  }
  return out;
}

/**
 * Reads the detail fields of form `f` into `raw` (empty clears a field) and adds the fields that are not numbers
 * to `wrong`; the stock schema then checks the rest.
 */
export function readDetails(f: Record<string, string>, raw: Record<string, unknown>, wrong: string[]): void {
  const text = (k: string) => (f[k] ?? "").trim();
  raw.public_description = text("public_description") || null;
  for (const k of [...LINES, ...CHOICES]) raw[k] = text(k) || null;
  for (const k of NUMBERS) raw[k] = numberOfInput(f[k] ?? "");
  for (const k of WHOLE) raw[k] = numberOfInput(f[k] ?? "", true);
  for (const k of [...NUMBERS, ...WHOLE]) if (Number.isNaN(raw[k])) wrong.push(k);
}

/** The detail fields of the listing form, grouped. */
export function DetailFields(p: { l: Lang; v: Record<string, string>; problem: FormProblem | undefined }) {
  const { l, v, problem } = p;
  const field = (k: DetailField, input: "text" | "decimal" | "whole" | "date" = "text") => (
    <Field l={l} k={k} v={v} problem={problem} input={input} />
  );
  return (
    <fieldset>
      <legend>{say(l, TEXTS.details)}</legend>
      <label for="public_description">{w(l, "public_description")}</label>
      <textarea
        id="public_description"
        name="public_description"
        rows={8}
        maxlength={PUBLIC_DESCRIPTION_MAX}
        aria-invalid={bad(problem, "public_description")}
      >
        {v.public_description ?? ""}
      </textarea>
      <fieldset>
        <legend>{say(l, TEXTS.costs)}</legend>
        <div class="filters">
          {field("warm_rent", "decimal")}
          {field("service_charges", "decimal")}
          {field("deposit", "decimal")}
          {field("floor", "whole")}
          {field("available_from")}
        </div>
      </fieldset>
      <fieldset aria-describedby="geg-hint">
        <legend>{say(l, TEXTS.energy)}</legend>
        <p class="hint" id="geg-hint">{say(l, TEXTS.geg)}</p>
        <div class="filters">
          <Select
            l={l}
            k="energy_certificate_type"
            v={v}
            problem={problem}
            options={ENERGY_CERTIFICATE_TYPES}
          />
          {field("energy_value", "decimal")}
          <Select l={l} k="energy_class" v={v} problem={problem} options={ENERGY_CLASSES} />
          {field("energy_carrier")}
          {field("construction_year", "whole")}
          {field("energy_certificate_valid_until", "date")}
        </div>
      </fieldset>
    </fieldset>
  );
}

/** The label of `k` with "*" when an advert must carry it (GEG §87). */
function Label(p: { l: Lang; k: DetailField }) {
  const required = (GEG_ADVERT_FIELDS as readonly string[]).includes(p.k);
  return <label for={p.k}>{w(p.l, p.k)}{required ? " *" : ""}</label>;
}

/** The rule of a field shown under it when the form named it wrong. */
function Rule(p: { l: Lang; k: DetailField; problem: FormProblem | undefined }) {
  if (!bad(p.problem, p.k)) return null;
  const rule = p.k === "warm_rent"
    ? TEXTS.warm_rent_rule
    : p.k === "energy_certificate_type"
    ? TEXTS.energy_certificate_type_rule
    : undefined;
  return rule ? <p class="hint" id={`${p.k}-rule`}>{say(p.l, rule)}</p> : null;
}

function Field(
  p: {
    l: Lang;
    k: DetailField;
    v: Record<string, string>;
    problem: FormProblem | undefined;
    input: "text" | "decimal" | "whole" | "date";
  },
) {
  const ruled = bad(p.problem, p.k) && (p.k === "warm_rent");
  return (
    <div>
      <Label l={p.l} k={p.k} />
      <input
        id={p.k}
        name={p.k}
        type={p.input === "date" ? "date" : "text"}
        inputmode={p.input === "decimal" ? "decimal" : p.input === "whole" ? "numeric" : undefined}
        maxlength={p.input === "text" ? 100 : undefined}
        value={p.v[p.k] ?? ""}
        aria-invalid={bad(p.problem, p.k)}
        aria-describedby={ruled ? `${p.k}-rule` : undefined}
      />
      <Rule l={p.l} k={p.k} problem={p.problem} />
    </div>
  );
}

function Select(
  p: {
    l: Lang;
    k: "energy_certificate_type" | "energy_class";
    v: Record<string, string>;
    problem: FormProblem | undefined;
    options: readonly string[];
  },
) {
  const word = (o: string) => o === "bedarf" || o === "verbrauch" ? say(p.l, TEXTS[o]) : o;
  const ruled = bad(p.problem, p.k) && p.k === "energy_certificate_type";
  return (
    <div>
      <Label l={p.l} k={p.k} />
      <select
        id={p.k}
        name={p.k}
        aria-invalid={bad(p.problem, p.k)}
        aria-describedby={ruled ? `${p.k}-rule` : undefined}
      >
        <option value="">{say(p.l, TEXTS.none)}</option>
        {p.options.map((o) => <Opt key={o} value={o} selected={o === p.v[p.k]} label={word(o)} />)}
      </select>
      <Rule l={p.l} k={p.k} problem={p.problem} />
    </div>
  );
}
