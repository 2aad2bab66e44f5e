/**
 * The workspace's viewing pages: the office's coming viewing slots (optionally of one listing) with who booked
 * them; creating several slots at once, moving and cancelling one. Thin adapters over `viewings/viewings.ts`, the
 * functions of `create_viewing_slots`, `list_viewings`, `move_viewing_slot` and `cancel_viewing_slot`.
 */
import type { Context, Hono } from "hono";
import { PAGE_SIZE_DEFAULT } from "../catalogue/listing.ts";
import { nowOf } from "../deps.ts";
import { officeListingTitles } from "../catalogue/office_listings.ts";
import type { ErrorReason } from "../errors.ts";
import { isUuid } from "../ids.ts";
import type { AppEnv } from "../routes/env.ts";
import {
  cancelViewingSlot,
  createViewingSlots,
  listOfficeViewings,
  moveViewingSlot,
} from "../viewings/viewings.ts";
import {
  MAX_SLOT_MS,
  MAX_SLOTS_PER_CALL,
  PLACES,
  type ProviderSlot,
  type SlotInput,
} from "../viewings/slots.ts";
import { langOfRequest, type PageCtx, when } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { berlinIso, berlinParts } from "./berlin_time.ts";
import { CsrfField, Td } from "./layout.tsx";
import { decimal } from "../catalogue/german.ts";
import {
  attempt,
  bad,
  type FormProblem,
  memberAct,
  memberOf,
  memberPost,
  notFound,
  OneListing,
  pageParam,
  Pager,
  Problem,
  w,
  wordOf,
  WORKSPACE,
  type WsKey,
  WsPage,
  WsTable,
} from "./workspace_common.tsx";

type C = Context<AppEnv>;

const BASE = `${WORKSPACE}/termine`;
/** The longest slot the form offers, in minutes: the domain's longest slot. */
const MINUTES_MAX = MAX_SLOT_MS / 60_000;

/** Adds the viewing routes (`/termine`, creating, moving and cancelling slots) to the workspace app. */
export function viewingRoutes(app: Hono<AppEnv>, ctx: PageCtx): void {
  app.get("/termine", (c) => listPage(ctx, c));
  app.post("/termine/neu", (c) => create(ctx, c));
  app.post("/termine/:id/verlegen", (c) => move(ctx, c));
  app.post("/termine/:id/absagen", (c) => cancel(ctx, c));
}

async function listPage(ctx: PageCtx, c: C, problem?: FormProblem, kept: Record<string, string> = {}) {
  const m = memberOf(c);
  const l = langOfRequest(c);
  const objekt = c.req.query("objekt") || kept.objekt || undefined;
  const page = pageParam(c);
  const r = await attempt(ctx, c, () =>
    listOfficeViewings(ctx.deps, m.officeId, {
      listing_id: objekt,
      from: new Date(nowOf(ctx.deps).getTime() - 24 * 3_600_000).toISOString(),
      page,
      page_size: PAGE_SIZE_DEFAULT,
    }), () => notFound(ctx, c));
  if (r instanceof Response) return r;
  const titles = await officeListingTitles(ctx.deps.db, m.officeId, [
    ...(objekt ? [objekt.toLowerCase()] : []),
    ...r.items.map((s) => s.listing_id),
  ]);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, "slots")} at="viewings">
      <Problem l={l} problem={problem} />
      {objekt
        ? <OneListing l={l} objekt={objekt} title={titles.get(objekt.toLowerCase())} all={BASE} />
        : <p>{w(l, "chooseListing")}</p>}
      {objekt && (
        <form method="post" action={`${BASE}/neu`}>
          <h2>{w(l, "newSlots")}</h2>
          <CsrfField token={csrf} />
          <input type="hidden" name="objekt" value={objekt} />
          <div class="filters">
            <Field l={l} id="date" type="date" problem={problem} value={kept.date} />
            <Field l={l} id="start" label="startTime" type="time" problem={problem} value={kept.start} />
            <Field l={l} id="minutes" type="number" problem={problem} value={kept.minutes ?? "30"} />
            <Field l={l} id="count" type="number" problem={problem} value={kept.count ?? "1"} />
            <Field l={l} id="places" type="number" problem={problem} value={kept.places ?? "1"} />
          </div>
          <button type="submit">{w(l, "create")}</button>
        </form>
      )}
      {r.total === 0
        ? <p>{w(l, "none")}</p>
        : <SlotRows ctx={ctx} c={c} items={r.items} titles={titles} back={BASE} withForms objekt={objekt} />}
      <Pager
        l={l}
        base={BASE}
        query={objekt ? { objekt } : {}}
        page={page}
        total={r.total}
        size={PAGE_SIZE_DEFAULT}
      />
    </WsPage>,
    problem ? 400 : 200,
  );
}

function Field(
  p: {
    l: "de" | "en";
    id: string;
    label?: WsKey;
    type: string;
    problem?: FormProblem | undefined;
    value?: string | undefined;
  },
) {
  return (
    <div>
      <label for={p.id}>{p.label ? w(p.l, p.label) : wordOf(p.l, p.id)}</label>
      <input
        id={p.id}
        name={p.id}
        type={p.type}
        required
        value={p.value ?? ""}
        aria-invalid={bad(p.problem, p.id)}
      />
    </div>
  );
}

/** The table of slots: listing, time, places, who booked; with `withForms` each open slot can be moved or cancelled. */
export function SlotRows(
  p: {
    ctx: PageCtx;
    c: C;
    items: ProviderSlot[];
    titles: Map<string, string | null>;
    back: string;
    withForms: boolean;
    /** The listing the list is filtered to: moving or cancelling returns to it. */
    objekt?: string | undefined;
  },
) {
  const l = langOfRequest(p.c);
  const csrf = csrfToken(p.c, p.ctx.secure);
  const titles = [w(l, "when"), w(l, "listing"), w(l, "booked"), w(l, "bookedBy"), ""];
  return (
    <WsTable titles={titles} class="scroll slots">
      {p.items.map((s) => (
        <tr data-slot-id={s.id} data-status={s.status}>
          <Td label={titles[0]!}>
            <span class="when">{when(l, s.start)} – {berlinParts(s.end).time}</span>
            {s.status === "cancelled" && <span class="badge">{w(l, "cancelled")}</span>}
          </Td>
          <Td label={titles[1]!}>
            <a href={`${WORKSPACE}/objekte/${s.listing_id}`}>
              {p.titles.get(s.listing_id) ?? w(l, "listing")}
            </a>
          </Td>
          <Td label={titles[2]!}>
            {decimal(s.booked, l)}/{decimal(s.places, l)}
          </Td>
          <Td label={titles[3]!}>
            {s.bookings.length === 0 && "—"}
            {s.bookings.map((b, i) => (
              <>
                {i > 0 && ", "}
                <a data-booking-id={b.id} href={`${WORKSPACE}/anfragen/${b.inquiry_id}`}>
                  {b.name ?? w(l, "seeker")}
                </a>
              </>
            ))}
          </Td>
          <td>
            {p.withForms && s.status === "open" && (
              <SlotForms
                l={l}
                s={s}
                csrf={csrf}
                objekt={p.objekt}
              />
            )}
          </td>
        </tr>
      ))}
    </WsTable>
  );
}

/** Move and cancel of one slot, each folded in a `<details>` so the row stays one line; cancelling asks first. */
function SlotForms(p: { l: "de" | "en"; s: ProviderSlot; csrf: string; objekt: string | undefined }) {
  const { l, s } = p;
  const start = berlinParts(s.start);
  const end = berlinParts(s.end);
  return (
    <div class="row-actions">
      <details>
        <summary>{w(l, "moveMore")}</summary>
        <form method="post" action={`${BASE}/${s.id}/verlegen`}>
          <CsrfField token={p.csrf} />
          {p.objekt && <input type="hidden" name="objekt" value={p.objekt} />}
          <label for={`date-${s.id}`}>{w(l, "date")}</label>
          <input id={`date-${s.id}`} name="date" type="date" required value={start.date} />
          <label for={`start-${s.id}`}>{w(l, "startTime")}</label>
          <input id={`start-${s.id}`} name="start" type="time" required value={start.time} />
          <label for={`end-${s.id}`}>{w(l, "endTime")}</label>
          <input id={`end-${s.id}`} name="end" type="time" required value={end.time} />
          <button type="submit">{w(l, "move")}</button>
        </form>
      </details>
      <details class="confirm">
        <summary>{w(l, "cancelMore")}</summary>
        <form method="post" action={`${BASE}/${s.id}/absagen`}>
          <CsrfField token={p.csrf} />
          {p.objekt && <input type="hidden" name="objekt" value={p.objekt} />}
          <p>{w(l, "cancelConfirm")}</p>
          <button type="submit">{w(l, "yesCancel")}</button>
        </form>
      </details>
    </div>
  );
}

/** A whole number from a form field within [min, max], else undefined. */
function wholeIn(raw: string | undefined, min: number, max: number): number | undefined {
  if (!raw || !/^[0-9]{1,6}$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n >= min && n <= max ? n : undefined;
}

/** The slots the create form asks for, or the fields that are wrong. */
function slotsOf(f: Record<string, string>): SlotInput[] | FormProblem {
  const minutes = wholeIn(f.minutes, 5, MINUTES_MAX);
  const count = wholeIn(f.count, 1, MAX_SLOTS_PER_CALL);
  const places = wholeIn(f.places, PLACES.min, PLACES.max);
  const first = berlinIso(f.date ?? "", f.start ?? "");
  const reasons: Record<string, ErrorReason> = {
    ...(first === undefined ? { date: "not_a_timestamp" as const } : {}),
    ...(minutes === undefined ? { minutes: "out_of_range" as const } : {}),
    ...(count === undefined ? { count: "out_of_range" as const } : {}),
    ...(places === undefined ? { places: "out_of_range" as const } : {}),
  };
  const fields = Object.keys(reasons);
  if (fields.length > 0) return { fields, reasons };
  return Array.from({ length: count! }, (_, i) => ({
    start: berlinIso(f.date!, f.start!, i * minutes!)!,
    end: berlinIso(f.date!, f.start!, (i + 1) * minutes!)!,
    places: places!,
  }));
}

/** The create form's field of a refusal's field (the form has no end: its length is in minutes). */
const DOMAIN_FIELD: Record<string, string> = { slots: "count", end: "minutes" };

/** A refusal of the create form with its fields (and their reasons) renamed to the form's. */
function ofCreateForm(problem: FormProblem): FormProblem {
  const name = (x: string) => DOMAIN_FIELD[x] ?? x;
  const reasons = Object.entries(problem.reasons ?? {}).map(([f, r]) => [name(f), r]);
  return { ...problem, fields: problem.fields.map(name), reasons: Object.fromEntries(reasons) };
}

function create(ctx: PageCtx, c: C) {
  return memberPost(ctx, c, (f, m) => {
    const slots = slotsOf(f);
    if (!Array.isArray(slots)) return listPage(ctx, c, slots, f);
    return {
      run: () => memberAct(ctx, m, (a) => createViewingSlots(a, f.objekt ?? "", slots)),
      again: (problem) => listPage(ctx, c, ofCreateForm(problem), f),
      next: (done: { listing_id: string }) => `${BASE}?objekt=${done.listing_id}&ok=saved`,
    };
  });
}

function move(ctx: PageCtx, c: C) {
  return memberPost(ctx, c, (f, m) => {
    const start = berlinIso(f.date ?? "", f.start ?? "");
    const end = berlinIso(f.date ?? "", f.end ?? "");
    const fields = [...(start === undefined ? ["start"] : []), ...(end === undefined ? ["end"] : [])];
    const reasons = Object.fromEntries(fields.map((x) => [x, "not_a_timestamp" as const]));
    if (fields.length > 0) return listPage(ctx, c, { fields, reasons }, kept(f));
    return {
      run: () =>
        memberAct(ctx, m, (a) => moveViewingSlot(a, c.req.param("id") ?? "", { start: start!, end: end! })),
      again: (problem) => listPage(ctx, c, problem, kept(f)),
      next: () => backTo(f, "saved"),
    };
  });
}

function cancel(ctx: PageCtx, c: C) {
  return memberPost(ctx, c, (f, m) => ({
    run: () => memberAct(ctx, m, (a) => cancelViewingSlot(a, c.req.param("id") ?? "")),
    again: (problem) => listPage(ctx, c, problem, kept(f)),
    next: () => backTo(f, "done"),
  }));
}

/** The listing a move or cancel form came from (a valid id only), to show its list again. */
function kept(f: Record<string, string>): Record<string, string> {
  return f.objekt && isUuid(f.objekt) ? { objekt: f.objekt.toLowerCase() } : {};
}

/** The slot list a move or cancel returns to (the listing's, when it came from one) with notice `ok`. */
function backTo(f: Record<string, string>, ok: string): string {
  const objekt = kept(f).objekt;
  return `${BASE}?${new URLSearchParams({ ...(objekt ? { objekt } : {}), ok })}`;
}
