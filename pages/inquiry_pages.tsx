/**
 * The signed-in seeker's inquiry pages (server-rendered, no JavaScript): the list of their inquiries with paging,
 * one thread, and the form to write again. Another person's inquiry answers exactly like an unknown one (404).
 */
import { isUuid } from "../ids.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import { PAGE_MAX, PAGE_SIZE_DEFAULT } from "../catalogue/listing.ts";
import { AppError } from "../errors.ts";
import {
  getSeekerInquiry,
  type InquirySummary,
  type InquiryThread,
  inquiryWritable,
  listSeekerInquiries,
  MESSAGE_MAX,
} from "../inquiries/inquiries.ts";
import { MessageField } from "./ui_forms.tsx";
import { sendSeekerMessage } from "../inquiries/messages.ts";
import type { AppEnv } from "../routes/env.ts";
import { csrfOk, csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { CsrfField, Layout, TableHead, Td } from "./layout.tsx";
import { langOfRequest, pageAct, type PageCtx, readForm, when } from "./common.ts";
import { messagePage, notFoundPage, type Person, personOf } from "./page_person.tsx";
import { BackToSearch } from "./back_link.tsx";
import { searchBack } from "./return_path.ts";

type C = Context<AppEnv>;

/** The inquiry routes of the account: `/konto/anfragen` and `/konto/anfragen/{id}` (GET and POST). */
export function inquiryPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/konto/anfragen", (c) => listPage(ctx, c));
  app.get("/konto/anfragen/:id", (c) => threadPage(ctx, c, {}));
  app.post("/konto/anfragen/:id", (c) => writeAgain(ctx, c));
  return app;
}

const STATUS_TEXT: Record<InquirySummary["status"], TextKey> = {
  open: "statusOpen",
  answered: "statusAnswered",
  rejected: "statusRejected",
  closed: "statusClosed",
};

async function listPage(ctx: PageCtx, c: C) {
  const person = await personOf(ctx, c);
  if (!person) return c.redirect(LOGIN_PAGE, 303);
  const rawPage = c.req.query("page") ?? "1";
  const page = /^[0-9]{1,10}$/.test(rawPage) ? Number(rawPage) : 0;
  if (page < 1 || page > PAGE_MAX) {
    return messagePage(c, { title: "myInquiries", text: "badRequest", status: 400, person }, ctx.secure);
  }
  const { items, total } = await listSeekerInquiries(ctx.deps, person.userId, {
    page,
    page_size: PAGE_SIZE_DEFAULT,
  });
  const l = langOfRequest(c);
  const last = Math.max(1, Math.ceil(total / PAGE_SIZE_DEFAULT));
  return c.html(
    <Layout
      lang={l}
      title={t(l, "myInquiries")}
      signedIn
      provider={person.workspace}
      csrf={csrfToken(c, ctx.secure)}
    >
      {total === 0 ? <p>{t(l, "noInquiries")}</p> : <InquiryTable l={l} items={items} />}
      <nav class="pager" aria-label={t(l, "pageOf")}>
        {page > 1 && (
          <a rel="prev" href={`/konto/anfragen?page=${Math.min(page - 1, last)}`}>{t(l, "previous")}</a>
        )}
        <span>
          {t(l, "pageOf")} {page} {t(l, "of")} {last}
        </span>
        {page < last && <a rel="next" href={`/konto/anfragen?page=${page + 1}`}>{t(l, "next")}</a>}
      </nav>
    </Layout>,
  );
}

function InquiryTable(p: { l: Lang; items: InquirySummary[] }) {
  const { l } = p;
  return (
    <table>
      <TableHead titles={[t(l, "listing"), t(l, "status"), t(l, "messages"), t(l, "lastActivity"), ""]} />
      <tbody>
        {p.items.map((i) => (
          <tr data-inquiry-id={i.id}>
            <Td label={t(l, "listing")}>
              <a href={`/objekte/${i.listing_id}`}>{i.listing_title ?? t(l, "untitled")}</a>
            </Td>
            <Td label={t(l, "status")}>{t(l, STATUS_TEXT[i.status])}</Td>
            <Td label={t(l, "messages")}>{i.message_count}</Td>
            <Td label={t(l, "lastActivity")}>{when(l, i.last_message_at)}</Td>
            <td>
              <a href={`/konto/anfragen/${i.id}`}>{t(l, "open")}</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The anchor of the write-again form: a refused message re-renders the page there, at its error. */
const WRITE_AGAIN_ID = "nachricht";
/** The id of the write-again error, named by the message field's `aria-describedby` when the text was refused. */
const WRITE_ERROR_ID = "nachricht-fehler";

/** What the thread page shows besides the thread: a notice or an error, and the text to fill in again. */
interface ThreadState {
  error?: TextKey;
  status?: 400 | 409 | 429;
  body?: string;
}

/** The seeker's own inquiry `id`, or undefined for a malformed, unknown or foreign id. */
async function ownInquiry(ctx: PageCtx, person: Person, id: string): Promise<InquiryThread | undefined> {
  if (!isUuid(id)) return undefined;
  try {
    return await getSeekerInquiry(ctx.deps, person.userId, id.toLowerCase());
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") return undefined;
    throw e;
  }
}

async function threadPage(ctx: PageCtx, c: C, state: ThreadState) {
  const person = await personOf(ctx, c);
  if (!person) return c.redirect(LOGIN_PAGE, 303);
  const thread = await ownInquiry(ctx, person, c.req.param("id") ?? "");
  if (!thread) return notFoundPage(ctx, c, person);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const sent = c.req.method === "GET" ? c.req.query("gesendet") : undefined;
  return c.html(
    <Layout
      lang={l}
      title={thread.listing_title ?? t(l, "untitled")}
      signedIn
      provider={person.workspace}
      csrf={csrf}
    >
      {(sent === "anfrage" || sent === "nachricht") && (
        <p class="notice" role="status">{t(l, sent === "anfrage" ? "inquirySentAccount" : "threadSent")}</p>
      )}
      {sent === "anfrage" && <BackToSearch l={l} back={searchBack(c.req.query("suche"))} />}
      <p>
        {t(l, "inquiryOf")} {when(l, thread.created_at)} · {t(l, "status")}:{" "}
        <strong id="inquiry-status">{t(l, STATUS_TEXT[thread.status])}</strong> ·{" "}
        <a href={`/objekte/${thread.listing_id}`}>{t(l, "listing")}</a>
      </p>
      <section id="messages">
        {thread.messages.map((m) => (
          <div class={`msg ${m.sender}`} data-sender={m.sender}>
            <small>
              {t(l, m.sender === "seeker" ? "you" : "provider")} · {when(l, m.created_at)}
            </small>
            <div class="body">{m.body}</div>
          </div>
        ))}
      </section>
      <h2 id={WRITE_AGAIN_ID}>{t(l, "writeAgain")}</h2>
      {state.error && <p class="error" role="alert" id={WRITE_ERROR_ID}>{t(l, state.error)}</p>}
      {!inquiryWritable(thread.status)
        ? <p id="thread-closed">{t(l, "threadClosed")}</p>
        : (
          <form method="post" action={`/konto/anfragen/${thread.id}#${WRITE_AGAIN_ID}`}>
            <CsrfField token={csrf} />
            <MessageField
              label={t(l, "message")}
              rows={5}
              value={state.body}
              marks={state.error === "messageInvalid"
                ? { "aria-invalid": "true", "aria-describedby": WRITE_ERROR_ID }
                : {}}
            />
            <button type="submit">{t(l, "sendMessage")}</button>
          </form>
        )}
    </Layout>,
    state.status ?? 200,
  );
}

async function writeAgain(ctx: PageCtx, c: C) {
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) {
    return messagePage(c, { title: "badRequest", text: "csrf", status: 403 }, ctx.secure);
  }
  const person = await personOf(ctx, c);
  if (!person) return c.redirect(LOGIN_PAGE, 303);
  const id = c.req.param("id") ?? "";
  if (!await ownInquiry(ctx, person, id)) return notFoundPage(ctx, c, person);
  const body = (f.message ?? "").trim();
  if (!body || body.length > MESSAGE_MAX) {
    return threadPage(ctx, c, { error: "messageInvalid", status: 400, body: f.message });
  }
  try {
    await pageAct(ctx, { kind: "seeker", userId: person.userId }, (a) => sendSeekerMessage(a, id, body));
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === "not_found") return notFoundPage(ctx, c, person);
    if (e.code === "rate_limited") return threadPage(ctx, c, { error: "messageLimited", status: 429, body });
    if (e.code === "invalid_request") {
      return threadPage(ctx, c, { error: "messageInvalid", status: 400, body });
    }
    if (e.code === "conflict") return threadPage(ctx, c, { error: "threadClosed", status: 409 });
    throw e;
  }
  return c.redirect(`/konto/anfragen/${id.toLowerCase()}?gesendet=nachricht`, 303);
}
