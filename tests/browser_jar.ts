/**
 * A scripted browser for OAuth tests: plain HTTP with a cookie jar, manual redirects, and form submission by
 * reading the page's own hidden fields. It stops at the first redirect that leaves the service's origin (the
 * app's redirect URI) and returns that address.
 */

/** A page or the address a redirect left the service for. */
export type Step = { kind: "page"; url: string; status: number; html: string } | {
  kind: "left";
  location: string;
};

/** A cookie jar and the calls a person's browser makes. */
export class JarBrowser {
  readonly jar = new Map<string, string>();
  constructor(readonly origin: string, readonly lang = "de-DE,de;q=0.9") {}

  /** Sends one request with the jar's cookies, stores the cookies it sets, follows no redirect. */
  async send(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set("cookie", [...this.jar].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("accept", "text/html");
    headers.set("accept-language", this.lang);
    const res = await fetch(new URL(url, this.origin), { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c) || value === "") this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return res;
  }

  /** Opens `url` and follows redirects inside the service's origin. */
  async open(url: string, init: RequestInit = {}): Promise<Step> {
    let res = await this.send(url, init);
    let at = new URL(url, this.origin).toString();
    for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
      await res.body?.cancel();
      const loc = new URL(res.headers.get("location")!, at);
      if (loc.origin !== this.origin) return { kind: "left", location: loc.toString() };
      at = loc.toString();
      res = await this.send(at);
    }
    return { kind: "page", url: at, status: res.status, html: await res.text() };
  }

  /** Submits the form of `page` whose action is `action`, with its hidden fields plus `fields`. */
  async submit(page: Step, action: string, fields: Record<string, string>): Promise<Step> {
    if (page.kind !== "page") throw new Error(`no page to submit on (left for ${page.location})`);
    const body = new URLSearchParams({ ...hiddenFields(page.html, action), ...fields });
    return await this.open(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.origin },
      body,
    });
  }
}

/** The hidden inputs of the first form in `html` whose action is `action`. */
export function hiddenFields(html: string, action: string): Record<string, string> {
  const forms = [...html.matchAll(/<form\b[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => unescape(f[1]!) === action);
  if (!form) throw new Error(`no form with action ${action}`);
  const out: Record<string, string> = {};
  for (const m of form[2]!.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(m[0])?.[1];
    const value = /value="([^"]*)"/.exec(m[0])?.[1] ?? "";
    if (name) out[name] = unescape(value);
  }
  return out;
}

function unescape(s: string): string {
  return s.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">");
}
