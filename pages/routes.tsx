/**
 * The pages (server-rendered, German or English, no JavaScript needed): sign-in, consent, connected apps, API
 * keys, listings and inquiries, one sub-app per resource. Every form carries a CSRF token; every page is
 * `no-store` with a strict CSP and counts its writes in the write bucket (`pageMiddleware`). Rules live in
 * `auth/`, `events/` and `db/`; the handlers parse the form, call a domain function, and render.
 */
import { ACCOUNT_PAGE, WORKSPACE_PAGE } from "../auth/account_home.ts";
import { Hono } from "hono";
import type { AuthHandle } from "../auth/auth_handle.ts";
import { CONSENT_PAGE } from "../auth/auth_settings.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { APPS_PAGE, appsPageRoutes } from "./apps_pages.tsx";
import { type PageCtx, pageMiddleware } from "./common.ts";
import { consentPageRoutes } from "./consent_page.tsx";
import { inquiryPageRoutes } from "./inquiry_pages.tsx";
import { keyPageRoutes, KEYS_PAGE } from "./key_pages.tsx";
import { listingPageRoutes } from "./listing_pages.tsx";
import { signInPageRoutes } from "./sign_in_pages.tsx";
import { passwordPageRoutes } from "./password_pages.tsx";
import { inquiryMailPageRoutes } from "./inquiry_mail_pages.tsx";
import { startPageRoutes } from "./start_page.tsx";
import { workspacePageRoutes } from "./workspace_pages.tsx";
import { accountStartPage } from "./account_start_page.tsx";
import { savedSearchPageRoutes } from "./saved_search_pages.tsx";

/**
 * The pages sub-app, mounted at "/". The resource sub-apps bring the page middleware themselves; the page-wide
 * copy after them serves the listing and inquiry pages (and unknown paths) and, being `*`, would still serve
 * every page if moved before them.
 */
export function pageRoutes(deps: AppDeps, auth: AuthHandle): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ctx: PageCtx = { deps, auth, secure: deps.config.baseUrl.startsWith("https:") };
  app.route("/", signInPageRoutes(ctx));
  app.route("/", passwordPageRoutes(ctx));
  app.route(CONSENT_PAGE, consentPageRoutes(ctx));
  app.route(APPS_PAGE, appsPageRoutes(ctx));
  app.route(KEYS_PAGE, keyPageRoutes(ctx));
  app.route(WORKSPACE_PAGE, workspacePageRoutes(ctx));
  app.use("*", ...pageMiddleware(ctx));
  app.route("/", listingPageRoutes(ctx));
  app.route("/", inquiryPageRoutes(ctx));
  app.route("/", inquiryMailPageRoutes(ctx));
  app.route("/", startPageRoutes(ctx));
  app.get(ACCOUNT_PAGE, (c) => accountStartPage(ctx, c));
  app.route("/", savedSearchPageRoutes(ctx));
  return app;
}
