/**
 * The pages' frame: the doctype (standards mode), document head, a one-row header, a small inline stylesheet.
 * Works without JavaScript and fits every width from 390 px: the header row holds the site's name (shortened with
 * an ellipsis when space runs out), the listings, a provider's workspace and the account menu, whose links sit in
 * a `<details>` panel at every width (they overflowed the row at 1280 px when shown inline); tables become stacked
 * cards on narrow screens, each cell labelled by its `data-label` (see {@linkcode Td}).
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { type Lang, t } from "./i18n.ts";
import { st } from "./saved_search_texts.ts";
import { PHOTO_STYLE } from "./listing_gallery.tsx";
import { DETAILS_STYLE } from "./listing_details.tsx";

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto 2rem;padding:0 1rem;color:#1b1b1b;line-height:1.5;overflow-wrap:break-word}
header.site{display:flex;gap:.75rem;align-items:center;flex-wrap:nowrap;border-bottom:1px solid #ccc;padding:.75rem 0 .5rem;margin-bottom:1.5rem;position:relative}
header.site .brand{font-weight:700;margin-right:auto;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0;color:inherit;text-decoration:none}
header.site a{white-space:nowrap}header.site nav.main{display:flex;gap:.75rem;flex-shrink:0}
header.site button{margin:0;padding:.25rem .75rem}
.menu>summary{cursor:pointer;white-space:nowrap;padding:.2rem .5rem;border:1px solid #999;border-radius:.25rem;list-style:none}
.menu>summary::-webkit-details-marker{display:none}
.menu>summary::after{content:" ▾"}
.menu .panel{position:absolute;right:0;top:100%;z-index:2;background:#fff;border:1px solid #ccc;padding:.75rem 1rem;display:flex;flex-direction:column;gap:.6rem;min-width:12rem;box-shadow:0 .25rem .75rem rgba(0,0,0,.15)}
label{display:block;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text],input[type=tel],select,textarea{width:100%;padding:.5rem;font:inherit;max-width:100%}
[aria-invalid=true]{border:2px solid #c53030;background:#fffafa}
.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:0 1rem}.filters>.wide{grid-column:span 2}
.card{border:1px solid #ddd;padding:.75rem 1rem;margin:.75rem 0}.card h2{font-size:1.1rem;margin:0 0 .25rem}
.badge{display:inline-block;background:#fff7e0;border:1px solid #b7791f;padding:0 .4rem;font-size:.85rem;margin-left:.5rem}
nav.pager{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:1rem 0;align-items:baseline}
nav.pager ol{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0}nav.pager li>*{display:inline-block;min-width:2.2rem;padding:.3rem .5rem;text-align:center;border:1px solid #ccc}nav.pager [aria-current]{font-weight:700;background:#1b1b1b;color:#fff}
.per-sqm{margin:0;font-size:.95rem;color:#333}.empty{border:1px dashed #999;padding:.75rem 1rem;margin:1rem 0}.empty h2{font-size:1.1rem;margin-top:0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;min-width:0}
.msg{border-left:3px solid #ccc;padding:.25rem .75rem;margin:.75rem 0;white-space:pre-wrap}.msg.provider{border-color:#2f855a}
button{padding:.5rem 1rem;margin:.75rem .5rem 0 0;cursor:pointer;font:inherit}
.error{background:#fde8e8;border:1px solid #c53030;padding:.75rem}
.notice{background:#e6f4ea;border:1px solid #2f855a;padding:.75rem}
.warning{background:#fff7e0;border:1px solid #b7791f;padding:.75rem}
.hint{font-size:.9rem;color:#444}
code{overflow-wrap:anywhere;word-break:break-word}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
td button{margin-top:0}
.switches button{margin:.25rem 0 0 .5rem}
code.key{display:block;padding:.75rem;background:#f4f4f4;word-break:break-all;font-size:1.05rem}
form.inline{display:inline}
@media (max-width:40rem){
h1{font-size:1.5rem}
table,tbody,tr,td{display:block;width:100%}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
tr{border:1px solid #ddd;padding:.5rem .75rem;margin:.75rem 0}
td{border:0;padding:.15rem 0;overflow-wrap:anywhere}
td[data-label]:not([data-label=""])::before{content:attr(data-label) ": ";font-weight:600}
dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.5rem}
}
${PHOTO_STYLE}${DETAILS_STYLE}`;

/** Props of {@linkcode Layout}. Every prop but `lang` and `title` is optional; new ones stay optional. */
export interface LayoutProps {
  lang: Lang;
  title: string;
  signedIn?: boolean;
  /** The signed-in person is a provider with an office: the header shows the link to `/anbieter`. */
  provider?: boolean;
  csrf?: string;
  children?: Child;
}

/**
 * The page frame with the header; `signedIn` shows the account links and a sign-out button, `provider` also the
 * providers' area. Starts with `<!DOCTYPE html>`, so browsers render every page in standards mode.
 */
export function Layout(p: LayoutProps) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang={p.lang}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${p.title} · ${t(p.lang, "siteName")}`}</title>
          <style>{raw(STYLE)}</style>
        </head>
        <body>
          <SiteHeader {...p} />
          <main>
            <h1>{p.title}</h1>
            {p.children}
          </main>
        </body>
      </html>
    </>
  );
}

/** The one-row header: the site's name (to the start page), the listings, and sign-in or the account menu. */
function SiteHeader(p: LayoutProps) {
  return (
    <header class="site">
      <a class="brand" href="/">{t(p.lang, "siteName")}</a>
      <nav class="main" aria-label={t(p.lang, "menu")}>
        <a href="/objekte">{t(p.lang, "listings")}</a>
        {p.signedIn && p.provider && <a href="/anbieter">{t(p.lang, "providerArea")}</a>}
      </nav>
      {p.signedIn ? <AccountMenu {...p} /> : <a href="/anmelden">{t(p.lang, "signIn")}</a>}
    </header>
  );
}

/** The account links and the sign-out button in a `<details>` menu (it works without JavaScript). */
function AccountMenu(p: LayoutProps) {
  return (
    <details class="menu">
      <summary>{t(p.lang, "account")}</summary>
      <nav class="panel" aria-label={t(p.lang, "account")}>
        <a href="/konto">{st(p.lang, "accountTitle")}</a>
        <a href="/konto/anfragen">{t(p.lang, "myInquiries")}</a>
        <a href="/konto/apps">{t(p.lang, "connectedApps")}</a>
        <a href="/konto/schluessel">{t(p.lang, "apiKeys")}</a>
        <a href="/konto/benachrichtigungen">{t(p.lang, "notifications")}</a>
        <form class="inline" method="post" action="/abmelden">
          <input type="hidden" name="_csrf" value={p.csrf ?? ""} />
          <button type="submit">{t(p.lang, "signOut")}</button>
        </form>
      </nav>
    </details>
  );
}

/** A hidden CSRF field. */
export function CsrfField(p: { token: string }) {
  return <input type="hidden" name="_csrf" value={p.token} />;
}

/** Props of {@linkcode ButtonForm}. */
export interface ButtonFormProps {
  action: string;
  csrf: string;
  /** The hidden fields the button posts, by name. */
  fields: Record<string, string>;
  label: string;
  /** The button's accessible name where its label alone is ambiguous. */
  ariaLabel?: string;
  class?: string;
}

/** A form of one button posting hidden fields (and the CSRF token) to `action`: revoke, disconnect, resend … */
export function ButtonForm(p: ButtonFormProps) {
  return (
    <form class={p.class} method="post" action={p.action}>
      <CsrfField token={p.csrf} />
      {Object.entries(p.fields).map(([name, value]) => <HiddenField key={name} name={name} value={value} />)}
      <button type="submit" aria-label={p.ariaLabel}>{p.label}</button>
    </form>
  );
}

/** One hidden field (a component, so a list of them can carry `key` without rendering it). */
function HiddenField(p: { name: string; value: string }) {
  return <input type="hidden" name={p.name} value={p.value} />;
}

/** The labelled e-mail field of the account forms (sign-in, sign-up, new link), filled with `value`. */
export function AccountEmailField(p: { lang: Lang; value?: string }) {
  return (
    <>
      <label for="email">{t(p.lang, "email")}</label>
      <input id="email" name="email" type="email" required autocomplete="username" value={p.value ?? ""} />
    </>
  );
}

/** The header row of a table: one column title per entry (an empty string for a column without a title). */
export function TableHead(p: { titles: string[] }) {
  return (
    <thead>
      <tr>
        {p.titles.map((title, i) => <HeadCell key={i} title={title} />)}
      </tr>
    </thead>
  );
}

function HeadCell(p: { title: string }) {
  return <th>{p.title}</th>;
}

/**
 * A table cell labelled with its column title: on narrow screens the table becomes stacked cards and each cell
 * shows "label: value" (CSS only). Pass the same text as the column's title in {@linkcode TableHead}.
 */
export function Td(p: { label: string; children?: Child }) {
  return <td data-label={p.label}>{p.children}</td>;
}
