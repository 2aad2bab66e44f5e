/**
 * The workspace's proposal pages: every proposal of the service's agent awaiting approval (draft replies,
 * rejections, property changes read from documents) with approve, edit and approve, discard; and the office's
 * templates of drafts. Thin adapters over `agent/proposals.ts`, the functions of the proposal MCP tools.
 */
import type { Context, Hono } from "hono";
import {
  approveProposal,
  discardProposal,
  getProposal,
  getTemplate,
  listProposals,
  type Proposal,
  type ProposalEdit,
  setTemplate,
  TEMPLATE_KINDS,
} from "../agent/proposals.ts";
import { TEMPLATE_MAX } from "../agent/drafts.ts";
import { PAGE_SIZE_DEFAULT } from "../catalogue/listing.ts";
import { decimal, formDecimal, numberOfInput } from "../catalogue/german.ts";
import { MESSAGE_MAX } from "../inquiries/inquiries.ts";
import { officeListingTitles } from "../catalogue/office_listings.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, type PageCtx, when } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { CsrfField } from "./layout.tsx";
import {
  type FormProblem,
  memberAct,
  memberOf,
  memberPost,
  pageParam,
  Pager,
  Problem,
  w,
  wordOf,
  WORKSPACE,
  WsPage,
  WsTable,
} from "./workspace_common.tsx";

type C = Context<AppEnv>;

const BASE = `${WORKSPACE}/vorschlaege`;

/** Adds the proposal routes (`/vorschlaege`, approve, discard, templates) to the workspace app. */
export function proposalRoutes(app: Hono<AppEnv>, ctx: PageCtx): void {
  app.get("/vorschlaege", (c) => listPage(ctx, c));
  app.post("/vorschlaege/vorlage", (c) => saveTemplate(ctx, c));
  app.post("/vorschlaege/:id/freigeben", (c) => approve(ctx, c));
  app.post("/vorschlaege/:id/verwerfen", (c) => discard(ctx, c));
}

async function listPage(ctx: PageCtx, c: C, problem?: FormProblem) {
  const m = memberOf(c);
  const l = langOfRequest(c);
  const page = pageParam(c);
  const [r, reply, rejection] = await Promise.all([
    listProposals(ctx.deps, m.officeId, { status: "offen", page, page_size: PAGE_SIZE_DEFAULT }),
    getTemplate(ctx.deps, m.officeId, "reply"),
    getTemplate(ctx.deps, m.officeId, "rejection"),
  ]);
  const titles = await officeListingTitles(ctx.deps.db, m.officeId, r.items.map((p) => p.objekt_id));
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, "openProposals")} at="proposals">
      <Problem l={l} problem={problem} />
      {r.total === 0
        ? <p>{w(l, "none")}</p>
        : <ProposalCards ctx={ctx} c={c} items={r.items} titles={titles} back={`${BASE}?page=${page}`} />}
      <Pager l={l} base={BASE} query={{}} page={page} total={r.total} size={PAGE_SIZE_DEFAULT} />
      <h2 id="templates">{w(l, "templates")}</h2>
      {[reply, rejection].map((t) => (
        <form method="post" action={`${BASE}/vorlage`}>
          <CsrfField token={csrf} />
          <input type="hidden" name="art" value={t.art} />
          <label for={`template-${t.art}`}>
            {w(l, `template_${t.art}`)} {t.eigene ? "" : w(l, "builtIn")}
          </label>
          <textarea id={`template-${t.art}`} name="text" rows={8} maxlength={TEMPLATE_MAX}>{t.text}</textarea>
          <button type="submit" name="aktion" value="speichern">{w(l, "save")}</button>
          {t.eigene && (
            <details class="confirm">
              <summary>{w(l, "resetTemplate")} …</summary>
              <p>{w(l, "resetConfirm")}</p>
              <button type="submit" name="aktion" value="zuruecksetzen">{w(l, "yesReset")}</button>
            </details>
          )}
        </form>
      ))}
    </WsPage>,
    problem ? 400 : 200,
  );
}

/** Proposal cards, each with its approve (text or values editable) and discard forms; `back` is where they return. */
export function ProposalCards(
  p: { ctx: PageCtx; c: C; items: Proposal[]; titles: Map<string, string | null>; back: string },
) {
  const l = langOfRequest(p.c);
  const csrf = csrfToken(p.c, p.ctx.secure);
  return (
    <>
      {p.items.map((v) => (
        <article class="card" data-proposal-id={v.vorschlag_id} data-kind={v.vorschlag_art}>
          <h3>{w(l, `kind_${v.vorschlag_art}`)}</h3>
          <p>
            <a href={`${WORKSPACE}/objekte/${v.objekt_id}`}>{p.titles.get(v.objekt_id) ?? w(l, "listing")}</a>
            {v.anfrage_id && (
              <>
                {" · "}
                <a href={`${WORKSPACE}/anfragen/${v.anfrage_id}`}>{w(l, "inquiries")}</a>
              </>
            )}
            {" · "}
            {when(l, v.created_at)}
            {v.geht_hinaus && <span class="badge">{w(l, "goesOut")}</span>}
          </p>
          <form method="post" action={`${BASE}/${v.vorschlag_id}/freigeben`}>
            <CsrfField token={csrf} />
            <input type="hidden" name="zurueck" value={p.back} />
            {v.text !== null && (
              <>
                <label for={`text-${v.vorschlag_id}`}>{w(l, "text")}</label>
                <textarea id={`text-${v.vorschlag_id}`} name="text" rows={8} maxlength={MESSAGE_MAX}>
                  {v.text}
                </textarea>
              </>
            )}
            {v.aenderungen && <Changes l={l} v={v} />}
            <button type="submit">{w(l, v.text === null ? "approveValues" : "approve")}</button>
          </form>
          <details class="confirm">
            <summary>{w(l, "discardMore")}</summary>
            <form method="post" action={`${BASE}/${v.vorschlag_id}/verwerfen`}>
              <CsrfField token={csrf} />
              <input type="hidden" name="zurueck" value={p.back} />
              <p>{w(l, "discardConfirm")}</p>
              <button type="submit">{w(l, "yesDiscard")}</button>
            </form>
          </details>
        </article>
      ))}
    </>
  );
}

function Changes(p: { l: "de" | "en"; v: Proposal }) {
  const { l, v } = p;
  return (
    <WsTable titles={[w(l, "field"), w(l, "oldValue"), w(l, "newValue")]}>
      {Object.entries(v.aenderungen ?? {}).map(([field, c]) => (
        <tr>
          <td>
            <label for={`neu-${v.vorschlag_id}-${field}`}>{wordOf(l, field)}</label>
          </td>
          <td>{typeof c.alt === "number" ? decimal(c.alt, l) : c.alt ?? "—"}</td>
          <td>
            <input
              id={`neu-${v.vorschlag_id}-${field}`}
              name={`neu.${field}`}
              type="text"
              inputmode="decimal"
              value={typeof c.neu === "number" ? formDecimal(c.neu, l) : c.neu ?? ""}
            />
          </td>
        </tr>
      ))}
    </WsTable>
  );
}

/** Where a proposal form returns: a workspace address, else the proposal list. */
const BACK = new RegExp(`^${WORKSPACE}(/[a-z0-9/-]*)?(\\?page=[0-9]{1,7})?$`);

function backOf(raw: string | undefined): string {
  return raw && BACK.test(raw) ? raw : BASE;
}

/** The edit the form makes to proposal `v`: a changed text or changed values; undefined when nothing changed. */
function editOf(v: Proposal, f: Record<string, string>): ProposalEdit | undefined {
  if (v.text !== null) {
    const text = f.text ?? "";
    return text.trim() === v.text.trim() ? undefined : { text };
  }
  const changed: Record<string, number | null> = {};
  for (const [field, c] of Object.entries(v.aenderungen ?? {})) {
    const raw = f[`neu.${field}`];
    if (raw === undefined) continue;
    const n = numberOfInput(raw);
    if (n !== c.neu) changed[field] = n;
  }
  return Object.keys(changed).length === 0 ? undefined : { aenderungen: changed };
}

function approve(ctx: PageCtx, c: C) {
  const id = c.req.param("id") ?? "";
  return memberPost(ctx, c, (f, m) => ({
    run: async () => {
      const v = await getProposal(ctx.deps, m.officeId, id);
      return await memberAct(ctx, m, (a) => approveProposal(a, id, editOf(v, f)));
    },
    again: (problem) => listPage(ctx, c, problem),
    next: () => withOk(backOf(f.zurueck), "sent"),
  }));
}

function discard(ctx: PageCtx, c: C) {
  return memberPost(ctx, c, (f, m) => ({
    run: () => memberAct(ctx, m, (a) => discardProposal(a, c.req.param("id") ?? "")),
    again: (problem) => listPage(ctx, c, problem),
    next: () => withOk(backOf(f.zurueck), "done"),
  }));
}

function saveTemplate(ctx: PageCtx, c: C) {
  return memberPost(ctx, c, (f, m) => {
    const art = TEMPLATE_KINDS.find((k) => k === f.art);
    if (!art) return listPage(ctx, c, { fields: ["art"] });
    const text = f.aktion === "zuruecksetzen" ? null : f.text ?? "";
    return {
      run: () => memberAct(ctx, m, (a) => setTemplate(a, art, text)),
      again: () => listPage(ctx, c, { fields: [`template-${art}`] }),
      next: () => `${BASE}?ok=saved#templates`,
    };
  });
}

function withOk(url: string, ok: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}ok=${ok}`;
}
