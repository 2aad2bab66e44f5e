/**
 * The better-auth set-up: e-mail/password accounts, sessions, and the OAuth 2.1 authorization server of its MCP
 * plugin (DCR, PKCE S256, RFC 8707/8414/9728/7009/9207, JWT access tokens of 10 minutes, rotating refresh tokens).
 *
 * The gaps of better-auth we close ourselves (docs/architecture.md §12) are closed here and in `auth/connections.ts`:
 * loopback redirect URIs make a client `native`; consent is narrowed to the person's right (`consentHook`);
 * disconnecting deletes consent and tokens in one transaction; every MCP call re-checks the connection.
 * Refresh tokens are single-use (a reuse ends the grant), and access tokens carry their issue time in µs of the
 * database clock so that ending a grant reaches them (`auth/revocation.ts`, migration 0018).
 *
 * Account mails: confirmation links are asked for by the pages (`auth/account_recovery.ts`, within the limits of
 * `auth/account_mail.ts`), not sent by better-auth on sign-up or sign-in by itself; password-reset links (one hour,
 * single use, stored hashed) open our page `/passwort-neu`, and a reset ends every session of the account.
 */
import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { jwt } from "better-auth/plugins";
import { mcp } from "@better-auth/mcp";
import { runWithAdapter, runWithRequestState } from "@better-auth/core/context";
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import type { Logger } from "../log.ts";
import { personAccess } from "../db/accounts.ts";
import { databaseMicros } from "../db/oauth.ts";
import { sendMail } from "./mail.ts";
import {
  RESET_TOKEN_SECONDS,
  resetLink,
  resetMail,
  verificationMail,
  VERIFY_TOKEN_SECONDS,
} from "./account_mail.ts";
import {
  ACCESS_TOKEN_SECONDS,
  AUTH_BASE_PATH,
  CONSENT_PAGE,
  grantableScopes,
  ISSUED_US_CLAIM,
  issuer,
  LOGIN_PAGE,
  markLoopbackClientsNative,
  mcpResource,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  REFRESH_TOKEN_SECONDS,
  SCOPES,
} from "./auth_settings.ts";

/** What better-auth needs from the service. */
export interface AuthDeps {
  config: Config;
  db: Db;
  log: Logger;
}

/** The options object of our better-auth instance (also used to compile its schema in tests). */
export function authOptions(deps: AuthDeps) {
  const { config, db, log } = deps;
  if (!config.authSecret) throw new Error("AUTH_SECRET is not set");
  return {
    appName: "Immobilienkatalog",
    baseURL: config.baseUrl,
    basePath: AUTH_BASE_PATH,
    secret: config.authSecret,
    // deno-lint-ignore no-explicit-any
    database: { db: db.kysely as any, type: "postgres" as const },
    telemetry: { enabled: false },
    // Our own token buckets throttle sign-in and every write (routes/, pages/); better-auth's limiter keeps its
    // state in memory, which would not hold across instances.
    rateLimit: { enabled: false },
    advanced: {
      ipAddress: { ipAddressHeaders: ["x-immo-client-ip"] },
      defaultCookieAttributes: { sameSite: "lax" as const, httpOnly: true },
    },
    user: {
      modelName: "users",
      additionalFields: {
        role: { type: "string" as const, required: false, defaultValue: "seeker", input: false },
      },
    },
    session: { modelName: "sessions", expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    account: { modelName: "accounts" },
    verification: {
      modelName: "verifications",
      // A reset token is a password for one hour: the database keeps only its SHA-256.
      storeIdentifier: { default: "plain" as const, overrides: { "reset-password:": "hashed" as const } },
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      autoSignIn: false,
      // Reset links open our page (`pages/password_pages.tsx`), not better-auth's redirecting endpoint.
      resetPasswordTokenExpiresIn: RESET_TOKEN_SECONDS,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, token }: { user: { email: string }; token: string }) => {
        await sendMail({ db, log, config }, resetMail(user.email, resetLink(config, token)), {
          background: true,
        });
      },
    },
    // Confirmation mails are asked for by the pages (`auth/account_recovery.ts`), which apply the per-address
    // limits of `auth/account_mail.ts` first: after sign-up, and when an unconfirmed person signs in.
    emailVerification: {
      sendOnSignUp: false,
      sendOnSignIn: false,
      autoSignInAfterVerification: true,
      expiresIn: VERIFY_TOKEN_SECONDS,
      sendVerificationEmail: async ({ user, url }: { user: { email: string }; url: string }) => {
        await sendMail({ db, log, config }, verificationMail(user.email, url), { background: true });
      },
    },
    hooks: { before: beforeHook(deps) },
    plugins: [
      jwt({ jwt: { issuer: issuer(config), audience: mcpResource(config) } }),
      mcp({
        resource: mcpResource(config),
        loginPage: LOGIN_PAGE,
        consentPage: CONSENT_PAGE,
        scopes: [...SCOPES],
        allowDynamicClientRegistration: true,
        allowUnauthenticatedClientRegistration: true,
        accessTokenExpiresIn: ACCESS_TOKEN_SECONDS,
        refreshTokenExpiresIn: REFRESH_TOKEN_SECONDS,
        grantTypes: ["authorization_code", "refresh_token"],
        // OAuth 2.1 §4.3.1 for public clients: a refresh token is used once. The MCP plugin's default (30 s)
        // answered a rotated token again with the same tokens; with 0 a reuse ends the whole grant.
        refreshTokenReuseInterval: 0,
        customAccessTokenClaims: async () => ({ [ISSUED_US_CLAIM]: await databaseMicros(db) }),
      }),
    ],
  };
}

/**
 * Builds the better-auth instance of the service. Opens nothing by itself. Loaded on first use through
 * `auth/auth_handle.ts` (docs/architecture.md §11.17), so a start that serves the catalogue first does not wait for it.
 */
export function createAuth(deps: AuthDeps) {
  return betterAuth(authOptions(deps));
}

/** The better-auth instance type. */
export type Auth = ReturnType<typeof createAuth>;

function beforeHook(deps: AuthDeps) {
  return createAuthMiddleware(async (ctx) => {
    if (ctx.path === "/oauth2/register") markLoopbackClientsNative(ctx.body);
    if (ctx.path === "/oauth2/consent") await consentHook(deps, ctx);
  });
}

/**
 * Gap 5: a person is granted only the right of their role (plus `offline_access`). The consent call is narrowed
 * to that; when no right is left, approving is refused (the page turns it into access_denied).
 */
// deno-lint-ignore no-explicit-any
async function consentHook(deps: AuthDeps, ctx: any): Promise<void> {
  const body = ctx.body as { accept?: boolean; scope?: string; oauth_query?: string } | undefined;
  if (!body?.accept) return;
  const session = ctx.context.session ?? await getSessionFromCtx(ctx);
  const userId: string | undefined = session?.user?.id;
  if (!userId) return;
  const access = await personAccess(deps.db, userId);
  const requested = (body.scope ?? new URLSearchParams(body.oauth_query ?? "").get("scope") ?? "").split(" ")
    .filter(Boolean);
  const granted = grantableScopes(requested, access);
  if (!granted.some((s) => s === "lesen" || s === "suchen")) {
    throw new APIError("FORBIDDEN", {
      error: "access_denied",
      error_description: "no right for this account",
    });
  }
  body.scope = granted.join(" ");
}

// deno-lint-ignore no-explicit-any
async function getSessionFromCtx(ctx: any) {
  const { getSessionFromCtx: get } = await import("better-auth/api");
  return await get(ctx);
}

/**
 * Runs `fn` with this instance's database adapter as better-auth's "current" adapter. better-auth looks the
 * adapter up in an AsyncLocalStorage first; a store left behind by another instance in the same process (tests
 * run several apps) must never be used.
 */
export async function withOwnAdapter<T>(auth: Auth, fn: () => Promise<T>): Promise<T> {
  const ctx = await auth.$context;
  // A fresh request state per call: better-auth keeps per-request state (e.g. the pending OAuth authorization
  // query its sign-in hook resumes) in an AsyncLocalStorage; without a new store per call, state set while one
  // person consented leaked into a later, unrelated sign-in and resumed that authorization for them.
  return await runWithRequestState(new WeakMap(), () => runWithAdapter(ctx.adapter, fn));
}
