/**
 * The workspace's inquiry pages: the office's inquiries from every source (filter by listing and status, paging),
 * one thread with the inquirer's details, reply and reject, and the agent's open drafts for it. Thin adapters over
 * `inquiries/inquiries.ts` and `agent/proposals.ts`, the functions of `reply_to_inquiry` and `reject_inquiry`.
 */
import type { Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import { listProposals } from "../agent/proposals.ts";
import { PAGE_SIZE_DEFAULT } from "../catalogue/listing.ts";
import {
  getOfficeInquiry,
  INQUIRY_STATUSES,
  type InquiryChannel,
  inquiryWritable,
  listOfficeInquiries,
  MESSAGE_MAX,
  type OfficeInquiry,
  type OfficeThread,
} from "../inquiries/inquiries.ts";
import { rejectInquiry, replyToInquiry } from "../inquiries/messages.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, type PageCtx, when } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import type { Lang } from "./i18n.ts";
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
  StatusFilter,
  w,
  WORKSPACE,
  WsPage,
  WsTable,
} from "./workspace_common.tsx";
import { ProposalCards } from "./workspace_proposals.tsx";
import { MessageField } from "./ui_forms.tsx";

type C = Context<AppEnv>;

const BASE = `${WORKSPACE}/anfragen`;

/** Adds the inquiry routes (`/anfragen`, `/anfragen/{id}`, its reply and rejection) to the workspace app. */
export function inquiryRoutes(app: Hono<AppEnv>, ctx: PageCtx): void {
  app.get("/anfragen", (c) => listPage(ctx, c));
  app.get("/anfragen/:id", (c) => threadPage(ctx, c));
  app.post("/anfragen/:id/antwort", (c) => reply(ctx, c));
  app.post("/anfragen/:id/absage", (c) => reject(ctx, c));
}

async function listPage(ctx: PageCtx, c: C) {
  const m = memberOf(c);
  const l = langOfRequest(c);
  const rawStatus = c.req.query("status");
  const status = INQUIRY_STATUSES.find((s) => s === rawStatus);
  const objekt = c.req.query("objekt") || undefined;
  const page = pageParam(c);
  const r = await attempt(
    ctx,
    c,
    () =>
      listOfficeInquiries(ctx.deps, m.officeId, {
        status,
        listing_id: objekt,
        page,
        page_size: PAGE_SIZE_DEFAULT,
      }),
    () => notFound(ctx, c),
  );
  if (r instanceof Response) return r;
  const query: Record<string, string> = {
    ...(status ? { status } : {}),
    ...(objekt ? { objekt } : {}),
  };
  return c.html(
    <WsPage ctx={ctx} c={c} title={w(l, "inquiries")} at="inquiries">
      <form method="get" action={BASE} class="filters">
        <StatusFilter l={l} statuses={INQUIRY_STATUSES} status={status} />
        {objekt && <input type="hidden" name="objekt" value={objekt} />}
        <div>
          <button type="submit">{w(l, "filter")}</button>
        </div>
      </form>
      {objekt && <OneListing l={l} objekt={objekt} title={r.items[0]?.listing_title} all={BASE} />}
      {r.total === 0 ? <p>{w(l, "none")}</p> : <InquiryRows l={l} items={r.items} />}
      <Pager l={l} base={BASE} query={query} page={page} total={r.total} size={PAGE_SIZE_DEFAULT} />
    </WsPage>,
  );
}

/** Where an inquiry came from, in words: "Website", "App „Name“", "E-Mail", "Portal „ImmoScout24“". */
export function channelText(l: Lang, ch: InquiryChannel): string {
  if ((ch.kind === "app" || ch.kind === "portal") && ch.name) {
    return l === "en" ? `${w(l, ch.kind)} “${ch.name}”` : `${w(l, ch.kind)} „${ch.name}“`;
  }
  return w(l, ch.kind);
}

/** The table of inquiries: who and what they wrote (first line), listing, where from, status, last message. */
export function InquiryRows(p: { l: Lang; items: OfficeInquiry[] }) {
  const { l } = p;
  const titles = [w(l, "inquirer"), w(l, "listing"), w(l, "source"), w(l, "status"), w(l, "lastActivity")];
  return (
    <WsTable titles={titles}>
      {p.items.map((i) => (
        <tr data-inquiry-id={i.id}>
          <Td label={titles[0]!}>
            <a href={`${BASE}/${i.id}`}>
              <strong data-name>{i.name ?? w(l, "seeker")}</strong>
            </a>
            {i.first_line && <div class="first-line" data-first-line>{i.first_line}</div>}
          </Td>
          <Td label={titles[1]!}>
            <a href={`${WORKSPACE}/objekte/${i.listing_id}`}>{i.listing_title ?? w(l, "listing")}</a>
          </Td>
          <Td label={titles[2]!}>
            <span data-channel={i.channel.kind}>{channelText(l, i.channel)}</span>
          </Td>
          <Td label={titles[3]!}>
            <span data-status={i.status}>{w(l, i.status)}</span>
          </Td>
          <Td label={titles[4]!}>
            {when(l, i.last_message_at)} ({decimal(i.message_count, l)})
          </Td>
        </tr>
      ))}
    </WsTable>
  );
}

async function threadPage(ctx: PageCtx, c: C, problem?: FormProblem, kept?: Record<string, string>) {
  const m = memberOf(c);
  const id = c.req.param("id") ?? "";
  const found = await attempt(ctx, c, async () => {
    const [thread, drafts] = await Promise.all([
      getOfficeInquiry(ctx.deps, m.officeId, id),
      listProposals(ctx.deps, m.officeId, { anfrage_id: id, status: "offen", page: 1, page_size: 20 }),
    ]);
    return { thread, drafts };
  }, () => notFound(ctx, c));
  if (found instanceof Response) return found;
  const { thread, drafts } = found;
  // The drafts are about this inquiry's listing, whose title the thread already has.
  const titles = new Map(thread.listing_title ? [[thread.listing_id, thread.listing_title]] : []);
  return c.html(
    <WsPage ctx={ctx} c={c} title={thread.listing_title ?? w(langOfRequest(c), "inquiries")} at="inquiries">
      <Thread ctx={ctx} c={c} thread={thread} problem={problem} kept={kept} draftsOpen={drafts.total > 0}>
        {drafts.total > 0 && (
          <section aria-labelledby="h-drafts">
            <h2 id="h-drafts">{w(langOfRequest(c), "draftReply")}</h2>
            <ProposalCards
              ctx={ctx}
              c={c}
              items={drafts.items}
              titles={titles}
              back={`${BASE}/${thread.id}`}
            />
          </section>
        )}
      </Thread>
    </WsPage>,
    problem ? 400 : 200,
  );
}

function Thread(
  p: {
    ctx: PageCtx;
    c: C;
    thread: OfficeThread;
    problem?: FormProblem | undefined;
    kept?: Record<string, string> | undefined;
    /** Whether the agent has open drafts for this inquiry (a reply by hand discards them). */
    draftsOpen: boolean;
    children?: Child;
  },
) {
  const { thread: t, problem } = p;
  const l = langOfRequest(p.c);
  const csrf = csrfToken(p.c, p.ctx.secure);
  const writable = inquiryWritable(t.status);
  return (
    <>
      <p>
        <a href={`${WORKSPACE}/objekte/${t.listing_id}`}>{w(l, "listing")}</a>
        {" · "}
        {w(l, "status")}: <span data-status={t.status}>{w(l, t.status)}</span>
        {" · "}
        {w(l, "source")}: <span data-channel={t.channel.kind}>{channelText(l, t.channel)}</span>
      </p>
      <dl class="facts">
        <dt>{w(l, "from")}</dt>
        <dd>{t.name ?? "—"}</dd>
        <dt>{w(l, "email")}</dt>
        <dd>
          <a href={`mailto:${t.email}`}>{t.email}</a>
        </dd>
        {t.phone && (
          <>
            <dt>{w(l, "phone")}</dt>
            <dd>{t.phone}</dd>
          </>
        )}
      </dl>
      <h2>{w(l, "messages")}</h2>
      {t.messages.map((msg) => (
        <div class={`msg ${msg.sender}`} data-message-id={msg.id}>
          <strong>{w(l, msg.sender === "seeker" ? "seeker" : "provider")}</strong> · {when(l, msg.created_at)}
          {"\n"}
          {msg.body}
        </div>
      ))}
      {p.children}
      <Problem l={l} problem={problem} />
      {writable && (
        <>
          {p.draftsOpen && <p class="warning" data-drafts-close>{w(l, "draftCloses")}</p>}
          <form method="post" action={`${BASE}/${t.id}/antwort`}>
            <CsrfField token={csrf} />
            <MessageField
              label={w(l, "replyText")}
              rows={6}
              value={p.kept?.message}
              marks={{ "aria-invalid": bad(problem, "message") }}
            />
            <button type="submit">{w(l, "send")}</button>
          </form>
          <details class="confirm">
            <summary>{w(l, "rejectMore")}</summary>
            <form method="post" action={`${BASE}/${t.id}/absage`}>
              <CsrfField token={csrf} />
              <label for="reject-message">{w(l, "rejectText")}</label>
              <textarea id="reject-message" name="message" rows={3} maxlength={MESSAGE_MAX}></textarea>
              <p>{w(l, "rejectConfirm")}</p>
              <button type="submit">{w(l, "yesReject")}</button>
            </form>
          </details>
        </>
      )}
    </>
  );
}

function reply(ctx: PageCtx, c: C) {
  const id = c.req.param("id") ?? "";
  return memberPost(ctx, c, (f, m) => ({
    run: () => memberAct(ctx, m, (a) => replyToInquiry(a, id, f.message ?? "")),
    again: (problem) => threadPage(ctx, c, problem, f),
    next: () => `${BASE}/${id.toLowerCase()}?ok=sent`,
  }));
}

function reject(ctx: PageCtx, c: C) {
  const id = c.req.param("id") ?? "";
  return memberPost(ctx, c, (f, m) => {
    const text = (f.message ?? "").trim() === "" ? undefined : f.message;
    return {
      run: () => memberAct(ctx, m, (a) => rejectInquiry(a, id, text)),
      again: (problem) => threadPage(ctx, c, problem, f),
      next: () => `${BASE}/${id.toLowerCase()}?ok=done`,
    };
  });
}
