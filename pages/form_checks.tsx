/**
 * The checks the account forms run before anything else (CSRF token, then session) and the plain error page they
 * answer with when one fails.
 */
import type { Context } from "hono";
import { LOGIN_PAGE, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/auth_settings.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { langOfRequest, type PageCtx, readForm } from "./common.ts";
import { csrfOk } from "./csrf.ts";
import { t, type TextKey } from "./i18n.ts";
import { Layout } from "./layout.tsx";

type C = Context<AppEnv>;

/** A page with one error message (`key`) and the given status. */
export function errorPage(c: C, key: TextKey, status: 400 | 403 | 404 | 429) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={t(l, "badRequest")}>
      <p class="error">{t(l, key)}</p>
    </Layout>,
    status,
  );
}

/** The fields of a form POST whose CSRF token checks out, or the 403 page to send instead. */
export async function csrfForm(ctx: PageCtx, c: C): Promise<Record<string, string> | Response> {
  const f = await readForm(c);
  return csrfOk(c, f._csrf, ctx.deps.config.baseUrl) ? f : await errorPage(c, "csrf", 403);
}

/**
 * The first step of every signed-in form POST: the form, its CSRF check, and the session. Returns the answer to
 * send instead (403 page or redirect to sign-in) when one of them fails.
 */
export async function signedInForm(
  ctx: PageCtx,
  c: C,
): Promise<{ f: Record<string, string>; userId: string } | Response> {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(LOGIN_PAGE, 303);
  return { f, userId: session.userId };
}

/** A new password's field (sign-up, password reset), with the password rule's lengths for the browser. */
export function PasswordInput(p: { id: string }) {
  return (
    <input
      id={p.id}
      name={p.id}
      type="password"
      required
      minlength={PASSWORD_MIN_LENGTH}
      maxlength={PASSWORD_MAX_LENGTH}
      autocomplete="new-password"
    />
  );
}
