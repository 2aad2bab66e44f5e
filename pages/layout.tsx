/** The pages' frame: document head, navigation, a small inline stylesheet. Works without JavaScript. */
import type { Child } from "hono/jsx";
import { type Lang, t } from "./i18n.ts";

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.5}
nav{display:flex;gap:1rem;align-items:center;border-bottom:1px solid #ccc;padding-bottom:.5rem;margin-bottom:1.5rem}
nav .brand{font-weight:700;margin-right:auto}
label{display:block;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text],input[type=tel],select,textarea{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
.filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:0 1rem}
.card{border:1px solid #ddd;padding:.75rem 1rem;margin:.75rem 0}.card h2{font-size:1.1rem;margin:0 0 .25rem}
.badge{display:inline-block;background:#fff7e0;border:1px solid #b7791f;padding:0 .4rem;font-size:.85rem;margin-left:.5rem}
nav{flex-wrap:wrap}nav a{white-space:nowrap}nav.pager{border-bottom:0;padding:0;margin:1rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
.msg{border-left:3px solid #ccc;padding:.25rem .75rem;margin:.75rem 0;white-space:pre-wrap}.msg.provider{border-color:#2f855a}
button{padding:.5rem 1rem;margin:.75rem .5rem 0 0;cursor:pointer}
.error{background:#fde8e8;border:1px solid #c53030;padding:.75rem}
.notice{background:#e6f4ea;border:1px solid #2f855a;padding:.75rem}
.warning{background:#fff7e0;border:1px solid #b7791f;padding:.75rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}
code.key{display:block;padding:.75rem;background:#f4f4f4;word-break:break-all;font-size:1.05rem}
form.inline{display:inline}
`;

/** Props of {@linkcode Layout}. */
export interface LayoutProps {
  lang: Lang;
  title: string;
  signedIn?: boolean;
  csrf?: string;
  children?: Child;
}

/** The page frame with navigation; `signedIn` shows the account links and a sign-out button. */
export function Layout(p: LayoutProps) {
  return (
    <html lang={p.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${p.title} · ${t(p.lang, "siteName")}`}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <nav>
          <span class="brand">{t(p.lang, "siteName")}</span>
          <a href="/objekte">{t(p.lang, "listings")}</a>
          {p.signedIn
            ? (
              <>
                <a href="/konto/anfragen">{t(p.lang, "myEnquiries")}</a>
                <a href="/konto/apps">{t(p.lang, "connectedApps")}</a>
                <a href="/konto/schluessel">{t(p.lang, "apiKeys")}</a>
                <form class="inline" method="post" action="/abmelden">
                  <input type="hidden" name="_csrf" value={p.csrf ?? ""} />
                  <button type="submit">{t(p.lang, "signOut")}</button>
                </form>
              </>
            )
            : <a href="/anmelden">{t(p.lang, "signIn")}</a>}
        </nav>
        <main>
          <h1>{p.title}</h1>
          {p.children}
        </main>
      </body>
    </html>
  );
}

/** A hidden CSRF field. */
export function CsrfField(p: { token: string }) {
  return <input type="hidden" name="_csrf" value={p.token} />;
}

/** The header row of a table: one column title per entry (an empty string for a column without a title). */
export function TableHead(p: { titles: string[] }) {
  return (
    <thead>
      <tr>
        {p.titles.map((title) => <th>{title}</th>)}
      </tr>
    </thead>
  );
}
