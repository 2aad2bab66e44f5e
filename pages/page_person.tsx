/**
 * The signed-in person of a public page and the one-message pages (not found, refused) every public page uses.
 */
import type { Context } from "hono";
import { personAccess } from "../db/accounts.ts";
import { workspaceOffice } from "../auth/account_home.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { csrfToken } from "./csrf.ts";
import { t, type TextKey } from "./i18n.ts";
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

/** A page with one message (error or notice) and the given status. */
export function messagePage(
  c: C,
  p: { title: TextKey; text: TextKey; status: 400 | 403 | 404 | 429; person?: Person | undefined },
  secure: boolean,
) {
  const l = langOfRequest(c);
  return c.html(
    <Layout
      lang={l}
      title={t(l, p.title)}
      signedIn={!!p.person}
      provider={p.person?.workspace}
      csrf={p.person && csrfToken(c, secure)}
    >
      <p class="error" role="alert">{t(l, p.text)}</p>
      <p>
        <a href="/objekte">{t(l, "backToSearch")}</a>
      </p>
    </Layout>,
    p.status,
  );
}

/** The "not found" page (unknown, unpublished, malformed or foreign id). */
export function notFoundPage(ctx: PageCtx, c: C, person?: Person) {
  return messagePage(c, { title: "notFoundTitle", text: "notFound", status: 404, person }, ctx.secure);
}
