/**
 * A table of hostile requests to every route that takes input: REST, pages and their forms, the inbound
 * endpoints, the social webhook and `/mcp`. Every one is answered below 500, in the route's documented shape
 * (`{error: snake_case}` for REST, an HTML page for pages, JSON-RPC for `/mcp`), as well-formed UTF-8 whose
 * JSON strings hold no unpaired surrogate (RFC 8259 §8.2).
 */
import assert from "node:assert/strict";
import { createApiKey } from "../auth/api_keys.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { hubSignature } from "../social/signature.ts";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

const INTAKE_SECRET = "hostile-test-intake-secret-0123456789abcdef";
const APP_SECRET = "hostile-test-app-secret-0123456789";
Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
const t = await testApp(tdb.db, {
  INTAKE_SECRET,
  SOCIAL_APP_SECRET: APP_SECRET,
  SOCIAL_VERIFY_TOKEN: "hostile-verify-token-0123456789",
});
closeAfterAll(t, tdb);
const officeId = await ensureOffice(tdb.db, "Testbüro Hostile");
const userId = await insertUser(tdb.db, { email: "feind@example.org", name: "Feind", role: "seeker" });
await startMembership(tdb.db, userId, officeId);
const { key } = await createApiKey(tdb.db, userId, "hostile");
const [listingId] = await insertListings(tdb.db, officeId, [
  {
    ...sampleListing(5, prng(5), Date.now()),
    reference: "HOST-1",
    beispiel: false,
    status: "published",
    published_at: new Date(),
  },
]);
const csrf = await csrfPair();

/** The CSRF cookie of a fresh page view and its token, so forms get past the CSRF check to their parsing. */
async function csrfPair(): Promise<{ cookie: string; token: string }> {
  const res = await request(t.app, "/anmelden");
  await res.body?.cancel();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("immo_csrf="))!.split(";")[0]!;
  return { cookie, token: cookie.slice("immo_csrf=".length) };
}

/** What an answer must look like. */
type Shape = "json" | "html" | "rpc";

interface Case {
  label: string;
  path: string;
  shape: Shape;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** The exact status, when docs/contract.md §8 names one. */
  status?: number;
  /** The exact `error` code, when docs/contract.md §8 names one. */
  error?: string;
}

const BASELINE = "/api/public/valuation/location-baseline";
const enc = (s: string) => new TextEncoder().encode(s);
const bytes = (...b: number[]) => new Uint8Array(b);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
};
const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

/** A POST of `body` to the location baseline with content type `type`. */
const baseline = (
  label: string,
  type: string | undefined,
  body: Case["body"],
  status?: number,
  error?: string,
): Case => ({
  label: `baseline: ${label}`,
  path: BASELINE,
  method: "POST",
  shape: "json",
  headers: type === undefined ? {} : { "content-type": type },
  body,
  ...(status ? { status } : {}),
  ...(error ? { error } : {}),
});

const PLZ = '{"plz":"80331"}';

const REST: Case[] = [
  baseline("plain JSON", "application/json", PLZ, 200),
  baseline("space before ;", "application/json ; charset=utf-8", PLZ, 200),
  baseline("tab around ;", "application/json\t;\tcharset=utf-8", PLZ, 200),
  baseline("empty parameter", "application/json;", PLZ, 200),
  baseline("empty parameters", "application/json;;", PLZ, 200),
  baseline("quoted charset", 'application/json; charset="utf-8"', PLZ, 200),
  baseline("quoted ; inside a value", 'application/json; a="b;c"; d=e', PLZ, 200),
  baseline("upper case", "APPLICATION/JSON; CHARSET=UTF-8", PLZ, 200),
  baseline("+json suffix", "application/vnd.v2+json", PLZ, 200),
  baseline("+json suffix, parameter", "application/problem+json; v=2", PLZ, 200),
  baseline("latin-1 charset is ignored (RFC 8259 §11)", "application/json; charset=iso-8859-1", PLZ, 200),
  baseline("parameter without =", "application/json;charset", PLZ, 415, "unsupported_media_type"),
  baseline("parameter without value", "application/json;charset=", PLZ, 415, "unsupported_media_type"),
  baseline("unterminated quote", 'application/json; charset="utf-8', PLZ, 415, "unsupported_media_type"),
  baseline("space in type", "application/ json", PLZ, 415, "unsupported_media_type"),
  baseline("no subtype", "application", PLZ, 415, "unsupported_media_type"),
  baseline("no type", "/json", PLZ, 415, "unsupported_media_type"),
  baseline("two types", "application/json, text/plain", PLZ, 415, "unsupported_media_type"),
  baseline("jsonx", "application/jsonx", PLZ, 415, "unsupported_media_type"),
  baseline("bare +json", "application/+json", PLZ, 415, "unsupported_media_type"),
  baseline("text/json", "text/json", PLZ, 415, "unsupported_media_type"),
  baseline("text/plain", "text/plain", PLZ, 415, "unsupported_media_type"),
  baseline("form", "application/x-www-form-urlencoded", "plz=80331", 415, "unsupported_media_type"),
  baseline("multipart", "multipart/form-data; boundary=x", "--x--", 415, "unsupported_media_type"),
  baseline("wildcard", "*/*", PLZ, 415, "unsupported_media_type"),
  baseline("8 KiB type", `application/json; x=${"a".repeat(8192)}`, PLZ, 200),
  baseline("no type, no body", undefined, undefined, 200),
  baseline("no type, empty body", undefined, "", 200),
  baseline("no type, a body", undefined, PLZ, 415, "unsupported_media_type"),
  baseline("JSON type, empty body", "application/json", "", 400, "invalid_json"),
  baseline("truncated JSON", "application/json", '{"plz":', 400, "invalid_json"),
  baseline("JSON with junk after it", "application/json", '{"plz":"80331"}x', 400, "invalid_json"),
  baseline("bare word", "application/json", "nul", 400, "invalid_json"),
  baseline("invalid UTF-8", "application/json", concat(enc('{"city":"'), bytes(0xc3, 0x28), enc('"}')), 400),
  baseline("overlong UTF-8", "application/json", concat(enc('{"city":"'), bytes(0xc0, 0xaf), enc('"}')), 400),
  baseline("UTF-8 BOM", "application/json", concat(bytes(0xef, 0xbb, 0xbf), enc(PLZ)), 200),
  baseline("array", "application/json", "[]", 400, "invalid_request"),
  baseline("null", "application/json", "null", 400, "invalid_request"),
  baseline("string", "application/json", '"80331"', 400, "invalid_request"),
  baseline("deep nesting", "application/json", deep(50_000), 400, "invalid_request"),
  baseline("deep nesting in a field", "application/json", `{"lat":${deep(50_000)}}`, 400, "invalid_request"),
  baseline("number overflow", "application/json", '{"lat":1e400}', 400, "invalid_request"),
  baseline("__proto__", "application/json", '{"__proto__":{"plz":"1"}}', 400, "invalid_request"),
  baseline("duplicate keys", "application/json", '{"plz":"1","plz":"80331"}', 200),
  baseline("NUL in city", "application/json", '{"city":"Pots\\u0000dam"}', 400, "invalid_request"),
  baseline("lone surrogate in city", "application/json", '{"city":"\\ud83d"}', 400, "invalid_request"),
  baseline("emoji city", "application/json", JSON.stringify({ city: "a😀".repeat(33) }), 200),
  baseline(
    "emoji city, PLZ",
    "application/json",
    JSON.stringify({ plz: "14467", city: "😀".repeat(50) }),
    200,
  ),
  baseline("family emoji city", "application/json", JSON.stringify({ city: "x👨‍👩‍👧‍👦".repeat(9) }), 200),
  baseline("long unknown key", "application/json", JSON.stringify({ ["😀".repeat(5000)]: 1 }), 400),
  baseline("emoji unknown key", "application/json", JSON.stringify({ ["a😀".repeat(30)]: 1 }), 400),
  {
    label: "query: emoji parameter name",
    path: `/api/public/properties?${encodeURIComponent(`x${"😀".repeat(30)}`)}=1`,
    shape: "json",
    status: 400,
    error: "invalid_request",
  },
  {
    label: "query: invalid percent-encoding",
    path: "/api/public/properties?city=%E0%A4%A",
    shape: "json",
    status: 400,
  },
  { label: "query: NUL", path: "/api/public/properties?city=%00", shape: "json", status: 400 },
  { label: "query: encoded surrogate", path: "/api/public/properties?city=%ED%A0%BD", shape: "json" },
  { label: "query: bare %", path: "/api/public/properties?city=%", shape: "json" },
  {
    label: "path: invalid percent-encoding",
    path: "/api/public/properties/%E0%A4%A",
    shape: "json",
    status: 404,
  },
  { label: "path: NUL", path: "/api/public/properties/%00", shape: "json", status: 404 },
  { label: "path: unknown with NUL", path: "/api/%00/x", shape: "json", status: 404 },
  {
    label: "PROPFIND on a known path",
    path: "/api/public/properties",
    method: "PROPFIND",
    shape: "json",
    status: 405,
  },
  { label: "PROPFIND on an unknown path", path: "/nirgends", method: "PROPFIND", shape: "json", status: 404 },
  { label: "PATCH the baseline", path: BASELINE, method: "PATCH", shape: "json", status: 405, body: PLZ },
  { label: "DELETE /healthz", path: "/healthz", method: "DELETE", shape: "json", status: 405 },
];

/** A form POST to `path` with the CSRF pair, as `type` (form urlencoded unless given). */
const form = (
  label: string,
  path: string,
  body: Case["body"],
  type = "application/x-www-form-urlencoded",
): Case => ({
  label: `form ${path}: ${label}`,
  path,
  method: "POST",
  shape: "html",
  headers: { "content-type": type, cookie: csrf.cookie },
  body,
});
const withCsrf = (fields: string) => `_csrf=${csrf.token}&${fields}`;
const INQUIRY = `/objekte/${listingId}/anfrage`;
const multipart = (fields: Record<string, string>, boundary = "XyZ") =>
  Object.entries(fields).map(([k, v]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`
  ).join("") + `--${boundary}--\r\n`;

const GARBAGE_COOKIE = "immo_csrf=%E0%A4%A; better-auth.session_token=%00%ZZ; =; ;;";
const PAGES: Case[] = [
  {
    label: "sign-in: garbage cookies",
    path: "/anmelden",
    shape: "html",
    headers: { cookie: GARBAGE_COOKIE },
  },
  { label: "apps: garbage cookies", path: "/konto/apps", shape: "html", headers: { cookie: GARBAGE_COOKIE } },
  {
    label: "search: garbage Accept-Language",
    path: "/objekte",
    shape: "html",
    headers: { "accept-language": `;q=NaN,,,*;q=,${"x-".repeat(4000)}` },
  },
  { label: "search: absurd page", path: "/objekte?page=99999999999999999999999", shape: "html" },
  { label: "search: exponent price", path: "/objekte?min_price=1e309&max_price=-1", shape: "html" },
  { label: "search: NUL city", path: "/objekte?city=%00", shape: "html" },
  { label: "search: invalid percent", path: "/objekte?city=%E0%A4%A&page=%ZZ", shape: "html" },
  { label: "search: repeated fields", path: "/objekte?city=a&city=b&page=1&page=2", shape: "html" },
  {
    label: "search: emoji city",
    path: `/objekte?city=${encodeURIComponent("a😀".repeat(60))}`,
    shape: "html",
  },
  { label: "search: 100 KiB city", path: `/objekte?city=${"x".repeat(100 * 1024)}`, shape: "html" },
  { label: "search: unknown fields", path: "/objekte?__proto__=1&constructor=2", shape: "html" },
  { label: "listing: NUL id", path: "/objekte/%00", shape: "html", status: 404 },
  { label: "listing: invalid percent id", path: "/objekte/%E0%A4%A", shape: "html", status: 404 },
  { label: "listing: id with NUL", path: `/objekte/${listingId}%00`, shape: "html", status: 404 },
  { label: "listing: 10 KiB id", path: `/objekte/${"9".repeat(10240)}`, shape: "html", status: 404 },
  { label: "sent page: NUL id", path: "/objekte/%00/anfrage/gesendet", shape: "html", status: 404 },
  { label: "sign-in: signed query garbage", path: "/anmelden?sig=%E0%A4%A&client_id=%00", shape: "html" },
  {
    label: "consent: garbage query",
    path: "/zustimmung?sig=1&client_id=%00&redirect_uri=%E0",
    shape: "html",
  },
  { label: "inquiry thread: NUL id", path: "/konto/anfragen/%00", shape: "html" },
  form("NUL e-mail", "/anmelden", withCsrf("email=%00&password=%00")),
  form("invalid percent", "/anmelden", withCsrf("email=%E0%A4%A&password=x%")),
  form("repeated fields", "/anmelden", withCsrf("email=a@b.de&email=c@d.de&password=1&password=2")),
  form("array fields", "/anmelden", withCsrf("email[]=a@b.de&password[]=x")),
  form("huge password", "/anmelden", withCsrf(`email=a@b.de&password=${"p".repeat(400_000)}`)),
  form("emoji e-mail", "/anmelden", withCsrf(`email=${encodeURIComponent("😀".repeat(400))}&password=x`)),
  form("text/plain", "/anmelden", withCsrf("email=a@b.de&password=x"), "text/plain"),
  form("JSON", "/anmelden", JSON.stringify({ _csrf: csrf.token, email: "a@b.de" }), "application/json"),
  form("malformed type", "/anmelden", withCsrf("email=a@b.de"), "application/x-www-form-urlencoded;charset"),
  form("multipart without boundary", "/anmelden", multipart({ _csrf: csrf.token }), "multipart/form-data"),
  form(
    "multipart, wrong boundary",
    "/anmelden",
    multipart({ _csrf: csrf.token }),
    "multipart/form-data; boundary=a",
  ),
  form(
    "multipart, broken",
    "/anmelden",
    "--XyZ\r\nContent-Disposition: form-data\r\n\r\n",
    "multipart/form-data; boundary=XyZ",
  ),
  form(
    "multipart, fine",
    "/anmelden",
    multipart({ _csrf: csrf.token, email: "a@b.de", password: "x" }),
    "multipart/form-data; boundary=XyZ",
  ),
  form("invalid UTF-8", "/anmelden", concat(enc(withCsrf("email=")), bytes(0xff, 0xfe), enc("&password=x"))),
  form("NUL name and e-mail", "/registrieren", withCsrf("name=%00&email=a%00@b.de&password=0123456789ab")),
  form(
    "emoji name",
    "/registrieren",
    withCsrf(`name=${encodeURIComponent("😀".repeat(60))}&email=x@y.de&password=0123456789ab`),
  ),
  form("lone surrogate name", "/registrieren", withCsrf("name=%ED%A0%BD&email=z@y.de&password=0123456789ab")),
  form("huge fields", "/registrieren", withCsrf(`name=${"n".repeat(200_000)}&email=${"e".repeat(200_000)}`)),
  form("no session, garbage oauth query", "/zustimmung", withCsrf("oauth_query=sig%3D%00&decision=approve")),
  form(
    "no session, emoji oauth query",
    "/zustimmung",
    withCsrf("oauth_query=sig%3D%F0%9F%98%80&decision=deny"),
  ),
  form("no session, CRLF oauth query", "/zustimmung", withCsrf("oauth_query=sig%3D1%0D%0ALocation%3A%20x")),
  form("garbage cookie", "/abmelden", withCsrf(""), "application/x-www-form-urlencoded"),
  form("NUL message", INQUIRY, withCsrf("name=A%00&email=a@b.de&message=Hallo%00Welt")),
  form(
    "emoji everything",
    INQUIRY,
    withCsrf(
      `name=${encodeURIComponent("😀".repeat(200))}&email=x@y.de&message=${
        encodeURIComponent("😀".repeat(6000))
      }`,
    ),
  ),
  form("phone garbage", INQUIRY, withCsrf("name=A&email=a@b.de&phone=%00%00&message=Hi")),
  form("unknown listing", "/objekte/%00/anfrage", withCsrf("name=A&email=a@b.de&message=Hi")),
  form("wrong content type", INQUIRY, withCsrf("name=A&email=a@b.de&message=Hi"), "text/plain"),
];

/** A POST to an intake endpoint with the secret. */
const intake = (
  label: string,
  path: string,
  type: string | undefined,
  body: Case["body"],
  status?: number,
): Case => ({
  label: `intake ${path}: ${label}`,
  path,
  method: "POST",
  shape: "json",
  headers: { "x-intake-secret": INTAKE_SECRET, ...(type === undefined ? {} : { "content-type": type }) },
  body,
  ...(status ? { status } : {}),
});
const EMAIL = "/api/inbound/email";
const FEEDBACK = "/api/inbound/openimmo-feedback";
const MAIL = `From: A <a@b.de>\r\nTo: objekt-${listingId}@localhost\r\nSubject: Hallo\r\n\r\nGuten Tag`;
const XML =
  '<?xml version="1.0"?><openimmo_feedback><objekt><oobj_id>HOST-1</oobj_id></objekt></openimmo_feedback>';

const INBOUND: Case[] = [
  intake("rfc822", EMAIL, "message/rfc822", MAIL),
  intake("rfc822, upper case with parameter", EMAIL, "Message/RFC822 ; x=y", MAIL),
  intake("text/plain;", EMAIL, "text/plain;", MAIL),
  intake("text/plain;charset (malformed)", EMAIL, "text/plain;charset", MAIL, 415),
  intake("json", EMAIL, "application/json", MAIL, 415),
  intake("no type", EMAIL, undefined, MAIL, 415),
  intake("empty", EMAIL, "message/rfc822", ""),
  intake("binary garbage", EMAIL, "message/rfc822", bytes(0, 0xff, 0xfe, 0x80, 0, 13, 10, 13, 10, 0xc3)),
  intake("NUL in headers", EMAIL, "message/rfc822", `From: \0 <\0@b.de>\r\nTo: objekt-\0@x\r\n\r\n\0`),
  intake(
    "invalid UTF-8 subject",
    EMAIL,
    "message/rfc822",
    concat(enc("From: a@b.de\r\nSubject: "), bytes(0xff, 0xc3), enc("\r\n\r\nx")),
  ),
  intake(
    "huge header line",
    EMAIL,
    "message/rfc822",
    `From: a@b.de\r\nX-Long: ${"a".repeat(400_000)}\r\n\r\nx`,
  ),
  intake("many headers", EMAIL, "message/rfc822", "X-A: b\r\n".repeat(40_000) + "\r\nx"),
  intake("deep multipart", EMAIL, "message/rfc822", deepMime(200)),
  intake("xml", FEEDBACK, "application/xml", XML),
  intake("text/xml; charset", FEEDBACK, "text/xml; charset=utf-8", XML),
  intake("+xml suffix", FEEDBACK, "application/vnd.openimmo+xml", XML, 415),
  intake("xml;charset (malformed)", FEEDBACK, "application/xml;charset", XML, 415),
  intake("empty", FEEDBACK, "application/xml", "", 400),
  intake("garbage", FEEDBACK, "application/xml", "<<<>>>\0", 400),
  intake(
    "DOCTYPE",
    FEEDBACK,
    "application/xml",
    '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>',
    400,
  ),
  intake("deep nesting", FEEDBACK, "application/xml", "<a>".repeat(40_000) + "</a>".repeat(40_000), 400),
  intake("unknown encoding", FEEDBACK, "application/xml", '<?xml version="1.0" encoding="ebcdic"?><a/>', 400),
  intake(
    "invalid UTF-8",
    FEEDBACK,
    "application/xml",
    concat(enc("<openimmo_feedback>"), bytes(0xff), enc("</openimmo_feedback>")),
    400,
  ),
  intake("NUL in an id", FEEDBACK, "application/xml", XML.replace("HOST-1", "\u0000")),
];

function deepMime(n: number): string {
  let body = "x";
  for (let i = 0; i < n; i++) {
    body = `Content-Type: multipart/mixed; boundary=b${i}\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--`;
  }
  return `From: a@b.de\r\nTo: objekt-${listingId}@localhost\r\n${body}`;
}

const SOCIAL = "/api/inbound/social";
const SOCIAL_BODIES: Array<[string, string | Uint8Array<ArrayBuffer>, number?]> = [
  ["not JSON", "{", 400],
  ["empty", "", 400],
  ["array", "[]", 400],
  ["entry not an array", '{"object":"page","entry":"x"}', 400],
  ["null entry", '{"object":"page","entry":[null]}'],
  ["null change", '{"object":"page","entry":[{"id":"1","changes":[null],"messaging":[null]}]}'],
  [
    "numbers as ids",
    '{"object":"page","entry":[{"id":1e400,"changes":[{"field":"feed","value":{"item":"comment","verb":"add","comment_id":1e400}}]}]}',
  ],
  ["deep nesting", `{"object":"page","entry":${deep(50_000)}}`],
  ["invalid UTF-8", concat(enc('{"object":"page","entry":[{"id":"'), bytes(0xff), enc('"}]}'))],
  [
    "NUL text",
    '{"object":"page","entry":[{"id":"1","messaging":[{"sender":{"id":"\\u0000"},"message":{"mid":"\\u0000","text":"\\u0000"}}]}]}',
  ],
];
/** A delivery to the social webhook, signed with the app secret like Meta's. */
async function social(
  label: string,
  body: string | Uint8Array<ArrayBuffer>,
  type = "application/json",
  status?: number,
): Promise<Case> {
  const bytes = typeof body === "string" ? enc(body) : body;
  return {
    label: `social: ${label}`,
    path: SOCIAL,
    method: "POST",
    shape: "json",
    body: bytes,
    headers: {
      "content-type": type,
      "x-hub-signature-256": `sha256=${await hubSignature(APP_SECRET, bytes)}`,
    },
    ...(status === undefined ? {} : { status }),
  } satisfies Case;
}

const SOCIAL_CASES: Case[] = [
  ...await Promise.all(SOCIAL_BODIES.map(([label, body, status]) => social(label, body, undefined, status))),
  ...await Promise.all(
    ["text/plain", "application/json;charset", "application/vnd.v2+json", "application/x-www-form-urlencoded"]
      .map((type) => social(`content type ${type}`, '{"object":"page","entry":[]}', type, 200)),
  ),
  { label: "social: unsigned", path: SOCIAL, method: "POST", shape: "json", body: "{}", status: 401 },
  {
    label: "social: check with NUL",
    path: `${SOCIAL}?hub.mode=%00&hub.verify_token=%E0&hub.challenge=%00`,
    shape: "json",
  },
];

/** A POST to `/mcp` with the key. */
const mcp = (label: string, body: Case["body"], type = "application/json", status?: number): Case => ({
  label: `mcp: ${label}`,
  path: "/mcp",
  method: "POST",
  shape: "rpc",
  headers: {
    authorization: `Bearer ${key}`,
    accept: "application/json, text/event-stream",
    "content-type": type,
    "mcp-protocol-version": "2025-06-18",
  },
  body,
  ...(status ? { status } : {}),
});
const ping = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;

const MCP: Case[] = [
  mcp("not JSON", "{"),
  mcp("empty", ""),
  mcp("text/plain", ping("1"), "text/plain", 415),
  mcp("no parameter value", ping("1"), "application/json;charset", 415),
  mcp("+json suffix", ping("1"), "application/vnd.v2+json", 415),
  mcp("space before ;", ping("1"), "application/json ; charset=utf-8"),
  mcp("JSON that is not JSON-RPC", '{"hello":"world"}'),
  mcp("null", "null"),
  mcp("a string", '"x"'),
  mcp("empty batch", "[]"),
  mcp("batch", `[${ping("1")},${ping("2")}]`),
  mcp("huge id", ping("1e400")),
  mcp("long id", ping("9".repeat(10_000))),
  mcp("object id", ping('{"a":1}')),
  mcp("method a number", '{"jsonrpc":"2.0","id":1,"method":42}'),
  mcp("tools/call, params null", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}'),
  mcp("tools/call, params array", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}'),
  mcp("tools/call, name not a string", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":{}}}'),
  mcp(
    "tools/call, NUL arguments",
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"city":"\\u0000"}}}',
  ),
  mcp(
    "tools/call, lone surrogate",
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"city":"\\ud800"}}}',
  ),
  mcp("invalid UTF-8", concat(enc('{"jsonrpc":"2.0","id":1,"method":"'), bytes(0xff), enc('"}'))),
  mcp("deep nesting", deep(50_000)),
  { ...mcp("PUT", ping("1")), method: "PUT" },
  { ...mcp("PROPFIND", undefined), method: "PROPFIND" },
  { ...mcp("DELETE without a session", undefined), method: "DELETE" },
  {
    ...mcp("bearer with NUL", ping("1")),
    headers: { authorization: "Bearer %00", "content-type": "application/json" },
  },
  {
    ...mcp("10 KiB bearer", ping("1")),
    headers: { authorization: `Bearer ${"k".repeat(10240)}`, "content-type": "application/json" },
    status: 401,
  },
  {
    ...mcp("Basic auth", ping("1")),
    headers: { authorization: "Basic Og==", "content-type": "application/json" },
  },
];

const CASES: Case[] = [...REST, ...PAGES, ...INBOUND, ...SOCIAL_CASES, ...MCP];

/** Every string inside `v` is well-formed UTF-16 (no unpaired surrogate). */
function wellFormed(v: unknown): boolean {
  if (typeof v === "string") return v.isWellFormed();
  if (Array.isArray(v)) return v.every(wellFormed);
  if (v && typeof v === "object") {
    return Object.entries(v).every(([k, x]) => k.isWellFormed() && wellFormed(x));
  }
  return true;
}

/** Checks the answer's status and shape. */
async function check(c: Case, res: Response): Promise<void> {
  const label = `${c.label} → ${res.status}`;
  assert.ok(res.status < 500, label);
  if (c.status) assert.equal(res.status, c.status, label);
  const text = new TextDecoder("utf-8", { fatal: true }).decode(await res.arrayBuffer());
  const type = res.headers.get("content-type") ?? "";
  if (res.status >= 300 && res.status < 400) return;
  if (c.shape === "html" && type.startsWith("text/html")) {
    // Every page starts with the doctype (standards mode), then the document.
    assert.match(text, /^<!DOCTYPE html><html[\s>]/, label);
    assert.ok(text.isWellFormed(), label);
    return;
  }
  if (c.shape === "rpc" && type.startsWith("text/event-stream")) {
    for (const line of text.split("\n").filter((l) => l.startsWith("data:"))) {
      assert.ok(wellFormed(JSON.parse(line.slice(5))), label);
    }
    return;
  }
  if (c.shape === "html" && res.status >= 400) assert.fail(`${label}: expected an HTML page, got ${type}`);
  assert.match(type, /^application\/json/, label);
  const body = JSON.parse(text);
  assert.ok(wellFormed(body), `${label}: unpaired surrogate in ${text.slice(0, 200)}`);
  if (c.shape === "json" && res.status >= 400) {
    assert.match(body.error, /^[a-z]+(_[a-z]+)*$/, label);
    if (c.error) assert.equal(body.error, c.error, label);
    if (res.status === 400) assert.equal(typeof body.detail, "string", `${label}: a 400 has a detail`);
  }
}

Deno.test(`a table of ${CASES.length} hostile requests: below 500, documented shape, well-formed text`, async () => {
  const failures: string[] = [];
  for (const c of CASES) {
    const res = await request(t.app, c.path, {
      method: c.method ?? "GET",
      headers: c.headers ?? {},
      // Bytes, so that fetch adds no content type of its own.
      ...(c.body === undefined ? {} : { body: typeof c.body === "string" ? enc(c.body) : c.body }),
    });
    await check(c, res).catch((e) => failures.push(`${c.label}: ${(e as Error).message.split("\n")[0]}`));
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(t.logs.filter((l) => l.level === "error"), []);
});
