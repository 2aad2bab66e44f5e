/**
 * The public start page (`/`) for people's browsers: the search form, the newest listings, sign-in and sign-up,
 * and a short section for developers (REST with its OpenAPI document, MCP at `/mcp`). A request that does not
 * want HTML (an API client, see `wantsHtmlPage`) gets the 404 JSON of every unknown path, as before the page.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { searchListings } from "../catalogue/search.ts";
import type { AppEnv } from "../routes/env.ts";
import { type Lang, t } from "./i18n.ts";
import { langOfRequest, type PageCtx, wantsHtmlPage } from "./common.ts";
import { PersonLayout, personOf } from "./page_person.tsx";
import { ListingCard, SearchForm } from "./search_page.tsx";
import { cardPhotos } from "./listing_gallery.tsx";

type C = Context<AppEnv>;

/** How many of the newest listings the start page shows. */
const NEWEST = 6;
/** The OpenAPI document of the REST API (`app.ts` serves it). */
const OPENAPI_DOC = "/api/public/openapi.json";

/** The start page route, mounted at "/" after the page middleware. */
export function startPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => wantsHtmlPage(c) ? startPage(ctx, c) : c.notFound());
  return app;
}

async function startPage(ctx: PageCtx, c: C) {
  const l = langOfRequest(c);
  const [person, newest] = await Promise.all([
    personOf(ctx, c),
    searchListings(ctx.deps.db, { page: 1, page_size: NEWEST }),
  ]);
  const thumbs = await cardPhotos(ctx.deps, newest.items);
  return c.html(
    <PersonLayout c={c} l={l} secure={ctx.secure} title={t(l, "startTitle")} person={person}>
      <p>{t(l, "startLead")}</p>
      <SearchForm l={l} raw={{}} />
      <section id="neueste">
        <h2>{t(l, "newestListings")}</h2>
        {newest.items.length === 0
          ? <p>{t(l, "noResults")}</p>
          : newest.items.map((item, i) => (
            <ListingCard key={item.id} l={l} item={item} photo={thumbs.get(item.id)} eager={i < 2} />
          ))}
        <p>
          <a href="/objekte">{t(l, "allListings")}</a>
        </p>
      </section>
      {!person && <AccountSection l={l} />}
      <ApiSection l={l} />
    </PersonLayout>,
  );
}

function AccountSection(p: { l: Lang }) {
  const { l } = p;
  return (
    <section id="konto">
      <h2>{t(l, "startAccount")}</h2>
      <p>{t(l, "startAccountText")}</p>
      <p>
        <a href="/anmelden">{t(l, "signIn")}</a> · <a href="/registrieren">{t(l, "signUp")}</a>
      </p>
    </section>
  );
}

function ApiSection(p: { l: Lang }) {
  const { l } = p;
  return (
    <section id="api">
      <h2>{t(l, "apiTitle")}</h2>
      <p>
        {t(l, "apiRest")} <a href={OPENAPI_DOC} id="openapi-link">{OPENAPI_DOC}</a>
      </p>
      <p>{t(l, "apiMcp")}</p>
      <p class="hint">{t(l, "apiKeysHint")}</p>
    </section>
  );
}
