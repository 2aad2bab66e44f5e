/**
 * The agent's workspace under `/anbieter` (issue 22): overview, listings, inquiries, viewings and proposals of the
 * signed-in member's office. Every request passes the membership check (`memberGate`); every action calls the same
 * domain function as its MCP tool with no app origin, so every subscribed app receives its events.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { listProposals } from "../agent/proposals.ts";
import { countOfficeListings, LISTING_STATUSES, officeListingTitles } from "../catalogue/office_listings.ts";
import { nowOf } from "../deps.ts";
import { decimal } from "../catalogue/german.ts";
import { listOfficeInquiries } from "../inquiries/inquiries.ts";
import type { AppEnv } from "../routes/env.ts";
import { listOfficeViewings } from "../viewings/viewings.ts";
import { langOfRequest, type PageCtx, pageMiddleware } from "./common.ts";
import type { Lang } from "./i18n.ts";
import { memberGate, memberOf, notFound, w, WORKSPACE, WsPage } from "./workspace_common.tsx";
import { inquiryRoutes, InquiryRows } from "./workspace_inquiries.tsx";
import { listingRoutes } from "./workspace_listings.tsx";
import { ProposalCards, proposalRoutes } from "./workspace_proposals.tsx";
import { SlotRows, viewingRoutes } from "./workspace_viewings.tsx";

type C = Context<AppEnv>;

const WEEK_MS = 7 * 24 * 3_600_000;
const SHORT_LIST = 5;

/** The workspace routes, mounted at `/anbieter`: the page middleware, the membership check, then the pages. */
export function workspacePageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", ...pageMiddleware(ctx));
  app.use("*", memberGate(ctx));
  app.get("/", (c) => overview(ctx, c));
  listingRoutes(app, ctx);
  inquiryRoutes(app, ctx);
  viewingRoutes(app, ctx);
  proposalRoutes(app, ctx);
  app.all("*", (c) => notFound(ctx, c));
  return app;
}

async function overview(ctx: PageCtx, c: C) {
  const m = memberOf(c);
  const l = langOfRequest(c);
  const now = nowOf(ctx.deps);
  const [inquiries, proposals, slots, counts] = await Promise.all([
    listOfficeInquiries(ctx.deps, m.officeId, { status: "open", page: 1, page_size: SHORT_LIST }),
    listProposals(ctx.deps, m.officeId, { status: "offen", page: 1, page_size: SHORT_LIST }),
    listOfficeViewings(ctx.deps, m.officeId, {
      from: now.toISOString(),
      to: new Date(now.getTime() + WEEK_MS).toISOString(),
      page: 1,
      page_size: 60,
    }),
    countOfficeListings(ctx.deps.db, m.officeId),
  ]);
  const titles = await officeListingTitles(ctx.deps.db, m.officeId, [
    ...slots.items.map((s) => s.listing_id),
    ...proposals.items.map((p) => p.objekt_id),
  ]);
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, "workspace")} at="overview">
      <h2 id="stock">{w(l, "listingsByStatus")}</h2>
      <div class="stats">
        {LISTING_STATUSES.map((s) => (
          <a href={`${WORKSPACE}/objekte?status=${s}`} data-status={s}>
            <b>{decimal(counts[s], l)}</b>
            {w(l, s)}
          </a>
        ))}
      </div>
      <Section l={l} id="inquiries" total={inquiries.total}>
        <InquiryRows l={l} items={inquiries.items} />
      </Section>
      <Section l={l} id="proposals" total={proposals.total}>
        <ProposalCards ctx={ctx} c={c} items={proposals.items} titles={titles} back={WORKSPACE} />
      </Section>
      <Section l={l} id="viewings" total={slots.total}>
        <SlotRows ctx={ctx} c={c} items={slots.items} titles={titles} back={WORKSPACE} withForms={false} />
      </Section>
    </WsPage>,
  );
}

/** The overview's sections by id: their heading and the page that lists all of their kind. */
const SECTIONS = {
  inquiries: { title: "openInquiries", more: `${WORKSPACE}/anfragen?status=open` },
  proposals: { title: "openProposals", more: `${WORKSPACE}/vorschlaege` },
  viewings: { title: "nextViewings", more: `${WORKSPACE}/termine` },
} as const;

function Section(p: { l: Lang; id: keyof typeof SECTIONS; total: number; children?: unknown }) {
  const { title, more } = SECTIONS[p.id];
  return (
    <section aria-labelledby={`h-${p.id}`}>
      <h2 id={`h-${p.id}`}>
        {w(p.l, title)} <span data-count={p.id}>({decimal(p.total, p.l)})</span>
      </h2>
      {p.total === 0 ? <p>{w(p.l, "none")}</p> : (
        <>
          {p.children}
          <p>
            <a href={more}>{w(p.l, "showAll")}</a>
          </p>
        </>
      )}
    </section>
  );
}
