/**
 * What every page of the agent's workspace (`/anbieter`) shares: its German/English texts (`workspace_texts.ts`),
 * the membership check run on every request (one and the same 404 for seekers, members of another office, unknown
 * and malformed ids), the page frame with the workspace navigation, the one way a form POST runs (CSRF-checked form,
 * the member's call, 303 on success), how domain errors become pages (their reasons in words: `error_texts.ts`),
 * and the pieces of the lists (status filter, one-listing note, table, pager). The pages are thin adapters: every
 * rule lives in the domain modules the MCP tools call.
 */
import { forgivingPage } from "../paging.ts";
import { decimal } from "../catalogue/german.ts";
import type { Context, MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import type { Action, Actor } from "../deps.ts";
import { personAccess } from "../db/accounts.ts";
import { WORKSPACE_PAGE, workspaceOffice } from "../auth/account_home.ts";
import { AppError, type ErrorFacts, type ErrorReason } from "../errors.ts";
import { reasonText } from "./error_texts.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { langOfRequest, pageAct, type PageCtx } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { csrfForm } from "./form_checks.tsx";
import type { Lang } from "./i18n.ts";
import { Layout, TableHead } from "./layout.tsx";
import { w, wordOf, type WsKey } from "./workspace_texts.ts";

/** The texts (workspace_texts.ts): the pages import them from here with the rest of the workspace. */
export { isWsKey, w, wordOf, type WsKey } from "./workspace_texts.ts";

type C = Context<AppEnv>;

/** The address of the workspace. */
export const WORKSPACE = WORKSPACE_PAGE;

/** The signed-in person acting for their office. */
export interface Member {
  userId: string;
  officeId: string;
}

const members = new WeakMap<Request, Member>();

/**
 * The membership check of every workspace request: not signed in → sign-in page; signed in without an active
 * membership of an office (a seeker, a former member) → the workspace's one 404 page. Which office the person
 * belongs to is read anew on every request, so a membership that ended acts at once.
 */
export function memberGate(ctx: PageCtx): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const session = await sessionOf(ctx.auth, c);
    if (!session) return c.redirect(LOGIN_PAGE, 303);
    const officeId = workspaceOffice(await personAccess(ctx.deps.db, session.userId));
    if (!officeId) return notFound(ctx, c);
    members.set(c.req.raw, { userId: session.userId, officeId });
    return await next();
  };
}

/** The member the gate let through for this request. */
export function memberOf(c: C): Member {
  const m = members.get(c.req.raw);
  if (!m) throw new AppError("not_found");
  return m;
}

/** The one 404 page of the workspace: the same for every id it does not show and every person it turns away. */
export function notFound(ctx: PageCtx, c: C) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={w(l, "notFoundTitle")} signedIn csrf={csrfToken(c, ctx.secure)}>
      <p class="error">{w(l, "notFound")}</p>
    </Layout>,
    404,
  );
}

/** The member as the actor of a workspace write: a provider for their office. */
export function memberActor(m: Member): Actor {
  return { kind: "provider", userId: m.userId, officeId: m.officeId };
}

/** Runs a workspace write as one action of the member for their office (`pageAct`: no app, so no origin). */
export function memberAct<T>(ctx: PageCtx, m: Member, fn: (a: Action) => Promise<T>): Promise<T> {
  return pageAct(ctx, memberActor(m), fn);
}

const STYLE = `
main{overflow-wrap:break-word}
nav.ws{display:flex;flex-wrap:wrap;border-bottom:0;margin:0 0 1rem;padding:0;gap:.25rem 1rem}nav.ws a[aria-current=page]{font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
input[type=number],input[type=date],input[type=time],input[type=search],input[type=file]{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
input[aria-invalid=true],select[aria-invalid=true],textarea[aria-invalid=true]{border:2px solid #c53030}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.5rem}
.stats a{display:block;border:1px solid #ddd;padding:.5rem}.stats b{display:block;font-size:1.4rem}
fieldset{border:1px solid #ddd;margin:1rem 0;min-width:0}
.actions form{display:inline-block}
.actions{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin-top:.75rem}.actions>button{margin:0}
.actions details.confirm>summary{padding:.5rem 0}.actions details.confirm[open]{flex-basis:100%}
.row-actions{display:flex;flex-wrap:wrap;gap:.25rem 1rem}.row-actions summary,details.confirm>summary{cursor:pointer;color:#1a4f8b;white-space:nowrap}
details.confirm[open]{border:1px solid #c53030;padding:.25rem .75rem .75rem;background:#fffafa}
.when{white-space:nowrap}.first-line{color:#444;font-size:.95rem}.slots td{padding:.3rem .4rem}
@media (max-width:40rem){.scroll table,.scroll tbody,.scroll tr,.scroll td{display:block}.scroll thead{display:none}
.scroll tr{border-bottom:1px solid #ddd;padding:.25rem 0}.scroll td{border:0;padding:.1rem 0}}
`;

/** Props of {@linkcode WsPage}. */
export interface WsPageProps {
  ctx: PageCtx;
  c: C;
  title: string;
  /** Which entry of the workspace navigation is current. */
  at: "overview" | "stock" | "inquiries" | "viewings" | "proposals";
  children?: Child;
}

const NAV: Array<[WsPageProps["at"], string]> = [
  ["overview", WORKSPACE],
  ["stock", `${WORKSPACE}/objekte`],
  ["inquiries", `${WORKSPACE}/anfragen`],
  ["viewings", `${WORKSPACE}/termine`],
  ["proposals", `${WORKSPACE}/vorschlaege`],
];

/** A workspace page: the site frame, the workspace navigation and the notice named by `?ok=`. */
export function WsPage(p: WsPageProps) {
  const l = langOfRequest(p.c);
  const ok = p.c.req.query("ok");
  return (
    <Layout lang={l} title={p.title} signedIn provider csrf={csrfToken(p.c, p.ctx.secure)}>
      <style>{STYLE}</style>
      <nav class="ws" aria-label={w(l, "workspace")}>
        {NAV.map(([key, href]) => (
          <a href={href} aria-current={key === p.at ? "page" : undefined}>{w(l, key)}</a>
        ))}
      </nav>
      {(ok === "saved" || ok === "sent" || ok === "done") && <p class="notice" role="status">{w(l, ok)}</p>}
      {p.children}
    </Layout>
  );
}

/** A problem with a form, shown above it: the fields named (and marked), why where known, or a state conflict. */
export interface FormProblem {
  fields: string[];
  /** Why a field was refused, by field. */
  reasons?: Record<string, ErrorReason> | undefined;
  /** The facts of a `conflict` refusal (its reason is shown in the page's language). */
  conflict?: ErrorFacts | undefined;
}

/**
 * Runs a domain call of a page; `not_found` becomes the one 404 page, `rate_limited` a 429 page, and a field error
 * (`invalid_request`) or a `conflict` becomes a {@linkcode FormProblem} handed to `again` (the form shown again).
 */
export async function attempt<T>(
  ctx: PageCtx,
  c: C,
  call: () => Promise<T>,
  again: (p: FormProblem) => Response | Promise<Response>,
): Promise<T | Response> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === "not_found") return notFound(ctx, c);
    if (e.code === "rate_limited") return tooMany(c);
    if (e.code === "conflict") {
      return await again({ fields: e.facts.field ? [formField(e.facts.field)] : [], conflict: e.facts });
    }
    if (e.code === "invalid_request" || e.code === "payload_too_large") {
      const field = formField(e.facts.field ?? "form");
      return await again({
        fields: [field],
        reasons: e.facts.reason ? { [field]: e.facts.reason } : undefined,
      });
    }
    throw e;
  }
}

/** What a workspace form does once its form is read: the call, the form shown again, and where success leads. */
export interface FormStep<T> {
  /** The domain call (writes through {@linkcode memberAct}). */
  run: () => Promise<T>;
  /** The page shown again with a refusal (see {@linkcode attempt}). */
  again: (p: FormProblem) => Response | Promise<Response>;
  /** The address a success is sent on to (303). */
  next: (done: T) => string;
}

/**
 * A workspace form POST: the CSRF-checked form (else the 403 page) and the member go to `step`, which answers with
 * a page of its own (a form it refuses before any call) or the {@linkcode FormStep} run under {@linkcode attempt}.
 */
export async function memberPost<T>(
  ctx: PageCtx,
  c: C,
  step: (f: Record<string, string>, m: Member) => FormStep<T> | Response | Promise<Response>,
): Promise<Response> {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const s = await step(f, memberOf(c));
  if (s instanceof Response) return s;
  const done = await attempt(ctx, c, s.run, s.again);
  return done instanceof Response ? done : c.redirect(s.next(done), 303);
}

/** The 429 page. */
function tooMany(c: C) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={w(l, "tooMany")}>
      <p class="error">{w(l, "tooMany")}</p>
    </Layout>,
    429,
  );
}

/** The form field of a refusal's field path (`slots.2.start` → `start`, `aenderungen.preis` → `preis`). */
function formField(path: string): string {
  return path.split(".").filter((s) => !/^[0-9]+$/.test(s)).at(-1) || "form";
}

/** The problem box above a form: the conflict's reason and the named fields as links to them. */
export function Problem(p: { l: Lang; problem?: FormProblem | undefined }) {
  const { l, problem } = p;
  if (!problem) return null;
  return (
    <div class="error" role="alert">
      {problem.conflict !== undefined && (
        <p>
          {w(l, "conflict")} {reasonText(l, problem.conflict, (n) => wordOf(l, n)) ?? w(l, "conflictUnknown")}
        </p>
      )}
      {problem.fields.length > 0 && (
        <>
          <p>{w(l, "formErrors")}</p>
          <ul>
            {problem.fields.map((f) => {
              const why = problem.reasons?.[f];
              const text = why && reasonText(l, { reason: why }, (n) => wordOf(l, n));
              return (
                <li data-field={f} data-reason={why}>
                  <a href={`#${f}`}>{wordOf(l, f)}</a>
                  {text && `: ${text}`}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </div>
  );
}

/** Whether `field` is named by the problem (for `aria-invalid`). */
export function bad(problem: FormProblem | undefined, field: string): "true" | undefined {
  return problem?.fields.includes(field) ? "true" : undefined;
}

/** A whole page number from the query (1 when absent or not a number; at most the catalogue's PAGE_MAX). */
export function pageParam(c: C): number {
  return forgivingPage(c.req.query("page"));
}

/** The pager below a list: previous and next links keeping `query`. */
export function Pager(
  p: { l: Lang; base: string; query: Record<string, string>; page: number; total: number; size: number },
) {
  const last = Math.max(1, Math.ceil(p.total / p.size));
  const href = (n: number) => `${p.base}?${new URLSearchParams({ ...p.query, page: String(n) })}`;
  return (
    <nav class="pager" aria-label={w(p.l, "page")}>
      {p.page > 1 && <a rel="prev" href={href(Math.min(p.page - 1, last))}>{w(p.l, "previous")}</a>}
      <span>
        {w(p.l, "page")} {decimal(Math.min(p.page, last), p.l)} {w(p.l, "of")} {decimal(last, p.l)}{" "}
        ({decimal(p.total, p.l)})
      </span>
      {p.page < last && <a rel="next" href={href(p.page + 1)}>{w(p.l, "next")}</a>}
    </nav>
  );
}

/** The status filter of a list: every status of `statuses` and "all", `status` chosen. */
export function StatusFilter<S extends WsKey>(p: { l: Lang; statuses: readonly S[]; status: S | undefined }) {
  return (
    <div>
      <label for="status">{w(p.l, "status")}</label>
      <select id="status" name="status">
        <option value="">{w(p.l, "all")}</option>
        {p.statuses.map((s) => <Opt key={s} value={s} selected={s === p.status} label={w(p.l, s)} />)}
      </select>
    </div>
  );
}

/** Above a list filtered to one listing: "Objekt: <its title> · Alle Objekte" (the list at `all` unfiltered). */
export function OneListing(p: { l: Lang; objekt: string; title: string | null | undefined; all: string }) {
  return (
    <p>
      {w(p.l, "listing")}: <a href={`${WORKSPACE}/objekte/${p.objekt}`}>{p.title ?? p.objekt}</a>
      {" · "}
      <a href={p.all}>{w(p.l, "allListings")}</a>
    </p>
  );
}

/** A table of the workspace in a `scroll` box (stacked rows on narrow screens): column titles, then the rows. */
export function WsTable(p: { titles: string[]; class?: string; children?: Child }) {
  return (
    <div class={p.class ?? "scroll"}>
      <table>
        <TableHead titles={p.titles} />
        <tbody>{p.children}</tbody>
      </table>
    </div>
  );
}

/** One `<option>` of a select (a component, so a list of them can carry `key` without rendering it). */
export function Opt(p: { value: string; label: string; selected?: boolean }) {
  return <option value={p.value} selected={p.selected}>{p.label}</option>;
}
