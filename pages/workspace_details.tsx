/**
 * The listing details in the workspace's listing form (issue 31, docs/contract.md §4.14): the public description,
 * the costs, floor and availability, and the energy certificate, grouped, with German labels; the fields an advert
 * must carry when an energy certificate exists (GEG §87) are marked. Reads the form's values into the stock
 * fields (numbers German or English style) and names the wrong ones; the rules live in
 * `catalogue/listing_details.ts`.
 */
import type { Child } from "hono/jsx";
import { formDecimal, numberOfInput } from "../catalogue/german.ts";
import {
  ENERGY_CERTIFICATE_TYPES,
  ENERGY_CLASSES,
  GEG_ADVERT_FIELDS,
  type ListingDetails,
  PUBLIC_DESCRIPTION_MAX,
} from "../catalogue/listing_details.ts";
import { catalogue, isKeyOf, type Lang, pick } from "./i18n.ts";
import TEXTS_JSON from "./texts/workspace_details.json" with { type: "json" };
import { bad, type FormProblem, Opt, w, type WsKey } from "./workspace_common.tsx";

const TEXTS = catalogue(TEXTS_JSON, "pages/texts/workspace_details.json");
type DetailText = keyof typeof TEXTS;
const say = (l: Lang, key: DetailText) => pick(TEXTS[key], l);

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
      <legend>{say(l, "details")}</legend>
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
        <legend>{say(l, "costs")}</legend>
        <div class="filters">
          {field("warm_rent", "decimal")}
          {field("service_charges", "decimal")}
          {field("deposit", "decimal")}
          {field("floor", "whole")}
          {field("available_from")}
        </div>
      </fieldset>
      <fieldset aria-describedby="geg-hint">
        <legend>{say(l, "energy")}</legend>
        <p class="hint" id="geg-hint">{say(l, "geg")}</p>
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

/** The rule of field `k` (the text `<field>_rule`), shown under it when the form named it wrong; or undefined. */
function ruleOf(k: DetailField): DetailText | undefined {
  const key = `${k}_rule`;
  return isKeyOf(TEXTS, key) ? key : undefined;
}

/** The state of field `k`'s control: named wrong by the form or not, and the id of its rule when that is shown. */
function stateOf(problem: FormProblem | undefined, k: DetailField) {
  const wrong = bad(problem, k);
  return { invalid: wrong, describedBy: wrong && ruleOf(k) ? `${k}-rule` : undefined };
}

/**
 * One field of the form: its label with "*" when an advert must carry it (GEG §87), its control, and its rule when
 * the form named it wrong.
 */
function Row(p: { l: Lang; k: DetailField; problem: FormProblem | undefined; children: Child }) {
  const required = (GEG_ADVERT_FIELDS as readonly string[]).includes(p.k);
  const rule = bad(p.problem, p.k) ? ruleOf(p.k) : undefined;
  return (
    <div>
      <label for={p.k}>{w(p.l, p.k)}{required ? " *" : ""}</label>
      {p.children}
      {rule ? <p class="hint" id={`${p.k}-rule`}>{say(p.l, rule)}</p> : null}
    </div>
  );
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
  const state = stateOf(p.problem, p.k);
  return (
    <Row l={p.l} k={p.k} problem={p.problem}>
      <input
        id={p.k}
        name={p.k}
        type={p.input === "date" ? "date" : "text"}
        inputmode={p.input === "decimal" ? "decimal" : p.input === "whole" ? "numeric" : undefined}
        maxlength={p.input === "text" ? 100 : undefined}
        value={p.v[p.k] ?? ""}
        aria-invalid={state.invalid}
        aria-describedby={state.describedBy}
      />
    </Row>
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
  const word = (o: string) => o === "bedarf" || o === "verbrauch" ? say(p.l, o) : o;
  const state = stateOf(p.problem, p.k);
  return (
    <Row l={p.l} k={p.k} problem={p.problem}>
      <select id={p.k} name={p.k} aria-invalid={state.invalid} aria-describedby={state.describedBy}>
        <option value="">{say(p.l, "none")}</option>
        {p.options.map((o) => <Opt key={o} value={o} selected={o === p.v[p.k]} label={word(o)} />)}
      </select>
    </Row>
  );
}
