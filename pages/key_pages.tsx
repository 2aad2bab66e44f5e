/** The API-key pages (`/konto/schluessel`): a person's keys, creating one (shown once) and revoking one. */
import { Hono } from "hono";
import type { Context } from "hono";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../auth/api_keys.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { isProvider, langOfRequest, type PageCtx, pageMiddleware, when } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { signedInForm } from "./form_checks.tsx";
import { t, type TextKey } from "./i18n.ts";
import { ButtonForm, CsrfField, Layout, TableHead, Td } from "./layout.tsx";

type C = Context<AppEnv>;
type Ctx = PageCtx;

/** The address of the API-key page. */
export const KEYS_PAGE = "/konto/schluessel";

/** The API-key routes, mounted at `KEYS_PAGE`. */
export function keyPageRoutes(ctx: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", ...pageMiddleware(ctx));
  app.get("/", (c) => keysPage(ctx, c, {}));
  app.post("/", (c) => createKey(ctx, c));
  app.post("/widerrufen", (c) => revokeKey(ctx, c));
  return app;
}

async function keysPage(ctx: Ctx, c: C, p: { newKey?: string; notice?: TextKey; error?: TextKey }) {
  const l = langOfRequest(c);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(LOGIN_PAGE, 303);
  const [keys, provider] = await Promise.all([
    listApiKeys(ctx.deps.db, session.userId),
    isProvider(ctx, session.userId),
  ]);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <Layout lang={l} title={t(l, "apiKeys")} signedIn provider={provider} csrf={csrf}>
      {p.error && <p class="error" role="alert">{t(l, p.error)}</p>}
      {p.notice && <p class="notice" role="status">{t(l, p.notice)}</p>}
      {p.newKey && (
        <div class="notice" role="status">
          <p>{t(l, "keyCreated")}</p>
          <code class="key" id="new-key">{p.newKey}</code>
        </div>
      )}
      <form method="post" action={KEYS_PAGE}>
        <CsrfField token={csrf} />
        <label for="name">{t(l, "keyName")}</label>
        <input id="name" name="name" type="text" required maxlength={100} />
        <button type="submit">{t(l, "createKey")}</button>
      </form>
      {keys.length === 0 ? <p>{t(l, "noKeys")}</p> : (
        <table>
          <TableHead
            titles={[t(l, "keyName"), t(l, "apiKeys"), t(l, "created"), t(l, "lastUsed"), t(l, "status")]}
          />
          <tbody>
            {keys.map((k) => (
              <tr data-key-id={k.id}>
                <Td label={t(l, "keyName")}>{k.name}</Td>
                <Td label={t(l, "apiKeys")}>
                  <code>{k.displayPrefix}…</code>
                </Td>
                <Td label={t(l, "created")}>{when(l, new Date(k.created_at))}</Td>
                <Td label={t(l, "lastUsed")}>
                  {k.last_used_at ? when(l, new Date(k.last_used_at)) : t(l, "never")}
                </Td>
                <Td label={t(l, "status")}>
                  {k.revoked_at ? t(l, "revoked") : (
                    <ButtonForm
                      action={`${KEYS_PAGE}/widerrufen`}
                      csrf={csrf}
                      fields={{ key_id: k.id }}
                      label={t(l, "revoke")}
                    />
                  )}
                </Td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>,
  );
}

async function createKey(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const name = (f.name ?? "").trim();
  if (name.length < 1 || name.length > 100) return keysPage(ctx, c, { error: "invalidForm" });
  const created = await createApiKey(ctx.deps.db, userId, name);
  return keysPage(ctx, c, { newKey: created.key });
}

async function revokeKey(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const done = await revokeApiKey(ctx.deps.db, userId, f.key_id ?? "");
  return keysPage(ctx, c, done ? { notice: "keyRevoked" } : { error: "badRequest" });
}
