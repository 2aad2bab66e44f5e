/**
 * The workspace's listing pages: the office's stock (status filter, search, paging), creating and editing every
 * field, publish / reserve / withdraw, documents (upload, what was read), and the OpenImmo upload with its dry-run
 * report before anything is written. Thin adapters over `catalogue/stock.ts`, `documents/files.ts` and
 * `catalogue/openimmo_import.ts`, the functions of the stock, document and import MCP tools.
 */
import type { Context, Hono } from "hono";
import { PAGE_SIZE_DEFAULT, PROPERTY_TYPES, TRANSACTION_TYPES } from "../catalogue/listing.ts";
import {
  createListing,
  getOfficeListing,
  LISTING_STATUSES,
  type ListingFields,
  listingFieldsSchema,
  listOfficeListings,
  type OfficeListing,
  publishListing,
  reserveListing,
  updateListing,
  withdrawListing,
} from "../catalogue/office_listings.ts";
import { AppError } from "../errors.ts";
import type { Action } from "../deps.ts";
import { FILE_SORTS } from "../events/catalogue.ts";
import { listingFiles, uploadFile } from "../documents/files.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, type PageCtx } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import type { Lang } from "./i18n.ts";
import { CsrfField } from "./layout.tsx";
import {
  attempt,
  bad,
  type FormProblem,
  memberAct,
  memberOf,
  memberPost,
  notFound,
  Opt,
  pageParam,
  Pager,
  Problem,
  StatusFilter,
  w,
  WORKSPACE,
  type WsKey,
  WsPage,
  WsTable,
} from "./workspace_common.tsx";
import { formDecimal, numberOfInput } from "../catalogue/german.ts";
import { importRoutes, multipartForm } from "./workspace_import.tsx";
import { base64 } from "../crypto.ts";
import { PhotoSection, workspacePhotoRoutes } from "./workspace_photos.tsx";
import { DetailFields, detailValues, readDetails } from "./workspace_details.tsx";
import { Documents } from "./workspace_documents.tsx";
import { StatusBar, StatusButtons } from "./workspace_listing_status.tsx";

type C = Context<AppEnv>;

const BASE = `${WORKSPACE}/objekte`;
const TEXT_FIELDS = ["title", "reference", "city", "postal_code"] as const;
const NUMBER_FIELDS = ["asked_price", "total_rooms", "square_meters", "latitude", "longitude"] as const;
const CONTACT_FIELDS = ["provider_name", "contact_name", "contact_email", "contact_phone"] as const;
const CHOICE_FIELDS = [["property_type", PROPERTY_TYPES], ["transaction_type", TRANSACTION_TYPES]] as const;

/** Adds the listing routes (`/objekte`, `/objekte/neu`, `/objekte/import`, `/objekte/{id}` …) to the workspace app. */
export function listingRoutes(app: Hono<AppEnv>, ctx: PageCtx): void {
  app.get("/objekte", (c) => listPage(ctx, c));
  app.get("/objekte/neu", (c) => editPage(ctx, c, undefined));
  app.post("/objekte/neu", (c) => create(ctx, c));
  importRoutes(app, ctx);
  app.get("/objekte/:id", (c) => showListing(ctx, c));
  app.post("/objekte/:id", (c) => save(ctx, c));
  app.post("/objekte/:id/status", (c) => changeStatus(ctx, c));
  app.post("/objekte/:id/dokumente", (c) => upload(ctx, c));
  workspacePhotoRoutes(app, ctx);
}

async function listPage(ctx: PageCtx, c: C) {
  const m = memberOf(c);
  const l = langOfRequest(c);
  const rawStatus = c.req.query("status");
  const status = LISTING_STATUSES.find((s) => s === rawStatus);
  const q = (c.req.query("q") ?? "").slice(0, 100);
  const page = pageParam(c);
  const r = await listOfficeListings(ctx.deps.db, m.officeId, {
    status,
    search: q.replaceAll("\0", "") || undefined,
    page,
    page_size: PAGE_SIZE_DEFAULT,
  });
  const query: Record<string, string> = { ...(status ? { status } : {}), ...(q ? { q } : {}) };
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, "stock")} at="stock">
      <p>
        <a href={`${BASE}/neu`}>{w(l, "newListing")}</a>
        {" · "}
        <a href={`${BASE}/import`}>{w(l, "openimmo")}</a>
      </p>
      <form method="get" action={BASE} class="filters" role="search">
        <div>
          <label for="q">{w(l, "search")}</label>
          <input id="q" name="q" type="search" maxlength={100} value={q} />
        </div>
        <StatusFilter l={l} statuses={LISTING_STATUSES} status={status} />
        <div>
          <button type="submit">{w(l, "filter")}</button>
        </div>
      </form>
      {r.total === 0
        ? <p>{w(l, "none")}</p>
        : (
          <WsTable titles={[w(l, "title"), w(l, "status"), w(l, "city"), w(l, "reference")]}>
            {r.items.map((i) => (
              <tr data-listing-id={i.id}>
                <td>
                  <a href={`${BASE}/${i.id}`}>{i.title ?? "—"}</a>
                </td>
                <td data-status={i.status}>{w(l, i.status)}</td>
                <td>{[i.postal_code, i.city].filter(Boolean).join(" ") || "—"}</td>
                <td>{i.reference ?? ""}</td>
              </tr>
            ))}
          </WsTable>
        )}
      <Pager l={l} base={BASE} query={query} page={page} total={r.total} size={PAGE_SIZE_DEFAULT} />
    </WsPage>,
  );
}

/** The form values of a listing, as strings: numbers in the page's format, read back by `fieldsOf`. */
function valuesOf(x: OfficeListing | undefined, l: Lang): Record<string, string> {
  if (!x) return {};
  const out: Record<string, string> = {};
  for (const k of [...TEXT_FIELDS, "description", "property_type", "transaction_type"] as const) {
    out[k] = x[k] ?? "";
  }
  for (const k of NUMBER_FIELDS) out[k] = formNumber(k, x[k], l);
  for (const k of CONTACT_FIELDS) out[k] = x.contact[k] ?? "";
  return { ...out, ...detailValues(x) };
}

/** A number field's value as the form shows it: "365.000", "82,5"; coordinates with all their digits ("48,137"). */
function formNumber(k: (typeof NUMBER_FIELDS)[number], v: number | null, l: Lang): string {
  if (v === null) return "";
  if (k !== "latitude" && k !== "longitude") return formDecimal(v, l);
  return l === "en" ? String(v) : String(v).replace(".", ",");
}

async function showListing(ctx: PageCtx, c: C) {
  const m = memberOf(c);
  const listing = await attempt(
    ctx,
    c,
    () => getOfficeListing(ctx.deps.db, m.officeId, c.req.param("id") ?? ""),
    () => notFound(ctx, c),
  );
  if (listing instanceof Response) return listing;
  return await editPage(ctx, c, listing);
}

async function editPage(
  ctx: PageCtx,
  c: C,
  listing: OfficeListing | undefined,
  problem?: FormProblem,
  sent?: Record<string, string>,
) {
  const m = memberOf(c);
  const l = langOfRequest(c);
  const v = sent ?? valuesOf(listing, l);
  const csrf = csrfToken(c, ctx.secure);
  const files = listing ? await listingFiles(ctx.deps.db, m.officeId, listing.id) : [];
  const action = listing ? `${BASE}/${listing.id}` : `${BASE}/neu`;
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, listing ? "editListing" : "newListing")} at="stock">
      {listing && <StatusBar l={l} listing={listing} />}
      <Problem l={l} problem={problem} />
      <form method="post" action={action}>
        <CsrfField token={csrf} />
        <div class="filters">
          {TEXT_FIELDS.map((f) => <Input key={f} l={l} id={f} value={v[f]} problem={problem} />)}
          {CHOICE_FIELDS.map(([id, options]) => (
            <Choice key={id} l={l} id={id} options={options} value={v[id]} problem={problem} />
          ))}
          {NUMBER_FIELDS.map((f) => <Input key={f} l={l} id={f} value={v[f]} problem={problem} decimal />)}
        </div>
        <label for="description">{w(l, "description")}</label>
        <textarea
          id="description"
          name="description"
          rows={6}
          maxlength={20000}
          aria-invalid={bad(problem, "description")}
        >
          {v.description ?? ""}
        </textarea>
        <DetailFields l={l} v={v} problem={problem} />
        <fieldset>
          <legend>{w(l, "contact")}</legend>
          <div class="filters">
            {CONTACT_FIELDS.map((f) => <Input key={f} l={l} id={f} value={v[f]} problem={problem} />)}
          </div>
        </fieldset>
        <div class="actions">
          <button type="submit">{w(l, listing ? "save" : "create")}</button>
          {listing && <StatusButtons l={l} listing={listing} />}
        </div>
      </form>
      {listing && <PhotoSection ctx={ctx} c={c} l={l} listingId={listing.id} csrf={csrf} />}
      {listing && <Documents l={l} listingId={listing.id} files={files} csrf={csrf} />}
    </WsPage>,
    problem ? 400 : 200,
  );
}

function Input(
  p: { l: Lang; id: WsKey; value: string | undefined; problem: FormProblem | undefined; decimal?: boolean },
) {
  return (
    <div>
      <label for={p.id}>{w(p.l, p.id)}</label>
      <input
        id={p.id}
        name={p.id}
        type="text"
        inputmode={p.decimal ? "decimal" : undefined}
        value={p.value ?? ""}
        aria-invalid={bad(p.problem, p.id)}
      />
    </div>
  );
}

function Choice(
  p: {
    l: Lang;
    id: WsKey;
    options: readonly WsKey[];
    value: string | undefined;
    problem: FormProblem | undefined;
  },
) {
  return (
    <div>
      <label for={p.id}>{w(p.l, p.id)}</label>
      <select id={p.id} name={p.id} aria-invalid={bad(p.problem, p.id)}>
        <option value="">{w(p.l, "choose")}</option>
        {p.options.map((o) => <Opt key={o} value={o} selected={o === p.value} label={w(p.l, o)} />)}
      </select>
    </div>
  );
}
/** The listing fields of the form (empty clears a field), or the fields that are wrong. */
function fieldsOf(f: Record<string, string>): ListingFields | FormProblem {
  const raw: Record<string, unknown> = {};
  const wrong: string[] = [];
  for (const k of [...TEXT_FIELDS, "description", "property_type", "transaction_type"]) {
    raw[k] = (f[k] ?? "").trim() || null;
  }
  for (const k of NUMBER_FIELDS) {
    const n = numberOfInput(f[k] ?? "", k === "latitude" || k === "longitude");
    if (Number.isNaN(n)) wrong.push(k);
    raw[k] = n;
  }
  readDetails(f, raw, wrong);
  const contact = Object.fromEntries(CONTACT_FIELDS.map((k) => [k, (f[k] ?? "").trim() || null]));
  raw.contact = Object.values(contact).every((x) => x === null) ? null : contact;
  const parsed = listingFieldsSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String);
      wrong.push(path[0] === "contact" && path[1] ? path[1] : path[0] ?? "form");
    }
  }
  return wrong.length > 0 || !parsed.success ? { fields: [...new Set(wrong)] } : parsed.data;
}

/** Where a saved listing's form leads: its page with the "saved" notice. */
const savedPage = (x: OfficeListing) => `${BASE}/${x.id}?ok=saved`;

function create(ctx: PageCtx, c: C) {
  return memberPost(ctx, c, (f, m) => {
    const fields = fieldsOf(f);
    if ("fields" in fields && Array.isArray(fields.fields)) return editPage(ctx, c, undefined, fields, f);
    return {
      run: () => memberAct(ctx, m, (a) => createListing(a, fields as ListingFields)),
      again: (problem) => editPage(ctx, c, undefined, problem, f),
      next: savedPage,
    };
  });
}

function save(ctx: PageCtx, c: C) {
  const id = c.req.param("id") ?? "";
  return memberPost(ctx, c, (f, m) => {
    const fields = fieldsOf(f);
    if ("fields" in fields && Array.isArray(fields.fields)) {
      return againWith(ctx, c, id, (current) => editPage(ctx, c, current, fields, f));
    }
    // The listing is read only to show the form again: updateListing answers not_found itself. A status button
    // saves the edits and changes the status in one action: a refused change (publish with fields missing) keeps
    // neither, and the form is shown again with what was sent.
    return {
      run: () =>
        memberAct(ctx, m, async (a) => {
          const done = await updateListing(a, id, fields as ListingFields);
          return f.aktion ? await statusChange(a, id, f.aktion) : done;
        }),
      again: (problem) => againWith(ctx, c, id, (current) => editPage(ctx, c, current, problem, f)),
      next: savedPage,
    };
  });
}

function changeStatus(ctx: PageCtx, c: C) {
  const id = c.req.param("id") ?? "";
  return memberPost(ctx, c, (f, m) => ({
    run: async () => {
      await getOfficeListing(ctx.deps.db, m.officeId, id); // an unknown listing stays a 404 whatever the action
      return await memberAct(ctx, m, (a) => statusChange(a, id, f.aktion ?? ""));
    },
    again: async (problem) => editPage(ctx, c, await getOfficeListing(ctx.deps.db, m.officeId, id), problem),
    next: savedPage,
  }));
}

/** The status change `aktion` (publish, reserve, withdraw) of listing `id` in action `a`; else `invalid_request`. */
async function statusChange(a: Action, id: string, aktion: string): Promise<OfficeListing> {
  if (aktion === "publish") return await publishListing(a, id);
  if (aktion === "reserve") return (await reserveListing(a, id)).listing;
  if (aktion === "withdraw") return (await withdrawListing(a, id)).listing;
  throw new AppError("invalid_request", { field: "aktion" });
}

async function upload(ctx: PageCtx, c: C) {
  const form = await multipartForm(ctx, c);
  if (form instanceof Response) return form;
  const m = memberOf(c);
  const id = c.req.param("id") ?? "";
  const sorte = FILE_SORTS.find((s) => s === form.fields.sorte);
  if (!form.file || !sorte) {
    const fields = [!form.file ? "datei" : "sorte"];
    return await againWith(ctx, c, id, (current) => editPage(ctx, c, current, { fields }));
  }
  const file = form.file;
  const done = await attempt(
    ctx,
    c,
    async () => {
      const inhalt = base64(new Uint8Array(await file.arrayBuffer()));
      return await memberAct(ctx, m, (a) => uploadFile(a, { objektId: id, name: file.name, sorte, inhalt }));
    },
    (problem) =>
      againWith(
        ctx,
        c,
        id,
        (current) =>
          editPage(ctx, c, current, { fields: problem.fields.map((x) => x === "inhalt" ? "datei" : x) }),
      ),
  );
  if (done instanceof Response) return done;
  return c.redirect(`${BASE}/${id}?ok=saved#h-docs`, 303);
}

/**
 * The edit form shown again with a problem: the listing is read only now (the write already answered
 * not_found for another office's or an unknown listing); gone meanwhile, the workspace's 404 page.
 */
async function againWith(
  ctx: PageCtx,
  c: C,
  id: string,
  page: (current: OfficeListing) => Response | Promise<Response>,
): Promise<Response> {
  const current = await attempt(
    ctx,
    c,
    () => getOfficeListing(ctx.deps.db, memberOf(c).officeId, id),
    () => notFound(ctx, c),
  );
  return current instanceof Response ? current : await page(current);
}
