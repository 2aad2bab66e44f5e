/**
 * The signed-in person of a public page and the one-message pages (not found, refused) every public page uses.
 */
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { personAccess } from "../db/accounts.ts";
import { workspaceOffice } from "../auth/account_home.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { Layout } from "./layout.tsx";
import { langOfRequest, type PageCtx } from "./common.ts";

type C = Context<AppEnv>;

/** The signed-in person of a page request with their role. */
export interface Person {
  userId: string;
  email: string;
  name: string;
  role: "seeker" | "provider";
  /** Whether they may use the workspace (a provider with an active membership): the header links to it. */
  workspace: boolean;
}

/** The signed-in person and their role, or undefined. */
export async function personOf(ctx: PageCtx, c: C): Promise<Person | undefined> {
  const session = await sessionOf(ctx.auth, c);
  if (!session) return undefined;
  const access = await personAccess(ctx.deps.db, session.userId);
  return access
    ? { ...session, role: access.role, workspace: workspaceOffice(access) !== undefined }
    : undefined;
}

/** Props of {@linkcode PersonLayout}. */
export interface PersonLayoutProps {
  c: C;
  l: Lang;
  secure: boolean;
  title: string;
  /** The signed-in person, if any. */
  person: Person | undefined;
  /** The page's CSRF token when it has one already (a page asks for it once: the first call may set the cookie). */
  csrf?: string | undefined;
  children?: Child;
}

/** The frame of a page for anyone: a signed-in person gets the account menu, and the workspace link when they may. */
export function PersonLayout(p: PersonLayoutProps) {
  return (
    <Layout
      lang={p.l}
      title={p.title}
      signedIn={!!p.person}
      provider={p.person?.workspace}
      csrf={p.csrf ?? (p.person && csrfToken(p.c, p.secure))}
    >
      {p.children}
    </Layout>
  );
}

/** A page with one message (error or notice) and the given status. */
export function messagePage(
  c: C,
  p: { title: TextKey; text: TextKey; status: 400 | 403 | 404 | 429; person?: Person | undefined },
  secure: boolean,
) {
  const l = langOfRequest(c);
  return c.html(
    <PersonLayout c={c} l={l} secure={secure} title={t(l, p.title)} person={p.person}>
      <p class="error" role="alert">{t(l, p.text)}</p>
      <p>
        <a href="/objekte">{t(l, "backToSearch")}</a>
      </p>
    </PersonLayout>,
    p.status,
  );
}

/** The "not found" page (unknown, unpublished, malformed or foreign id). */
export function notFoundPage(ctx: PageCtx, c: C, person?: Person) {
  return messagePage(c, { title: "notFoundTitle", text: "notFound", status: 404, person }, ctx.secure);
}
