/**
 * OAuth test support: a served app with a provider and a seeker who have passwords, raw OAuth calls (register,
 * PKCE authorize through the real pages, token), and an `OAuthClientProvider` for the MCP SDK clients whose
 * "browser" is the scripted {@linkcode JarBrowser}.
 */
import { SignJWT } from "jose";
import { sql } from "kysely";
import { createPerson } from "../auth/accounts.ts";
import { ISSUED_US_CLAIM } from "../auth/auth_settings.ts";
import { databaseMicros } from "../db/oauth.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { JarBrowser, type Step } from "./browser_jar.ts";
import { openTestDb, serveTestApp, type TestApp, type TestDb } from "./helpers.ts";
import { type ClientKind, connectClient } from "./mcp_helpers.ts";

/** Password of every test person. */
export const PASSWORD = "richtig-geheim-123";
/** A loopback redirect URI no server listens on (the browser stops before following it). */
export const REDIRECT_URI = "http://127.0.0.1:9/callback";

/** A served app with people and one published listing. */
export interface OAuthWorld {
  tdb: TestDb;
  t: TestApp;
  origin: string;
  resource: string;
  officeId: string;
  provider: { userId: string; email: string };
  seeker: { userId: string; email: string };
  listingId: string;
  close(): Promise<void>;
}

/** Serves a fresh app on a loopback port with a provider (member of an office) and a seeker. */
export async function oauthWorld(env: Record<string, string> = {}): Promise<OAuthWorld> {
  const tdb = await openTestDb();
  const served = await serveTestApp(tdb.db, env);
  const { origin, app: t } = served;
  const officeId = await ensureOffice(tdb.db, "Büro OAuth");
  const provider = { email: "anbieterin@example.org", userId: "" };
  provider.userId = await createPerson(t.auth, tdb.db, {
    ...provider,
    name: "Anbieterin",
    password: PASSWORD,
    role: "provider",
  });
  await startMembership(tdb.db, provider.userId, officeId);
  const seeker = { email: "sucher@example.org", userId: "" };
  seeker.userId = await createPerson(t.auth, tdb.db, {
    ...seeker,
    name: "Sucher",
    password: PASSWORD,
    role: "seeker",
  });
  const [listingId] = await insertListings(tdb.db, officeId, [
    { ...sampleListing(5, prng(3), Date.now()), beispiel: true, status: "published" },
  ]);
  return {
    tdb,
    t,
    origin,
    resource: `${origin}/mcp`,
    officeId,
    provider,
    seeker,
    listingId: listingId!,
    async close() {
      await served.close();
      await tdb.close();
    },
  };
}

/** Registers a public client (RFC 7591) with `REDIRECT_URI`; returns its client_id. */
export async function register(origin: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${origin}/api/auth/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test-App",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...extra,
    }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(body)}`);
  return body.client_id;
}

/** A PKCE verifier and its S256 challenge. */
export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge: b64url(digest) };
}

/** Base64url without padding. */
export function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The authorize URL for `clientId` with the given parameters (defaults: code flow, S256, our resource). */
export function authorizeUrl(w: OAuthWorld, clientId: string, p: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  const all: Record<string, string | undefined> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: "suchen offline_access",
    state: "zustand-1",
    code_challenge_method: "S256",
    resource: w.resource,
    ...p,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) q.set(k, v);
  return `${w.origin}/api/auth/oauth2/authorize?${q}`;
}

/** Signs in on the page the browser is on (when it is the sign-in page) and answers the consent page. */
export async function signInAndConsent(
  b: JarBrowser,
  start: Step,
  email: string,
  decision: "approve" | "deny" = "approve",
): Promise<Step> {
  let step = start;
  if (step.kind === "page" && new URL(step.url).pathname === "/anmelden") {
    step = await b.submit(step, "/anmelden", { email, password: PASSWORD });
  }
  if (step.kind === "page" && new URL(step.url).pathname === "/zustimmung") {
    step = await b.submit(step, "/zustimmung", { decision });
  }
  return step;
}

/** Runs authorize → sign-in → consent and returns the redirect back to the app (with code or error). */
export async function authorize(
  w: OAuthWorld,
  clientId: string,
  email: string,
  p: Record<string, string | undefined> = {},
  decision: "approve" | "deny" = "approve",
): Promise<{ location: URL; verifier: string; browser: JarBrowser }> {
  const { verifier, challenge } = await pkce();
  const b = new JarBrowser(w.origin);
  const step = await signInAndConsent(
    b,
    await b.open(authorizeUrl(w, clientId, { code_challenge: challenge, ...p })),
    email,
    decision,
  );
  if (step.kind !== "left") throw new Error(`no redirect to the app: ${step.status} ${step.url}`);
  return { location: new URL(step.location), verifier, browser: b };
}

/** POSTs a form to the token endpoint; returns status and JSON. */
export async function token(
  w: OAuthWorld,
  form: Record<string, string>,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${w.origin}/api/auth/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** Full code flow for `email`; returns the token response. */
export async function tokensFor(
  w: OAuthWorld,
  clientId: string,
  email: string,
  scope = "suchen offline_access",
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const { location, verifier } = await authorize(w, clientId, email, { scope });
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`no code: ${location}`);
  const r = await token(w, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    resource: w.resource,
  });
  if (r.status !== 200) throw new Error(`token failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A tools/call of get_property on the MCP endpoint (legacy, stateless) with a bearer; returns the response. */
export async function mcpCall(w: OAuthWorld, bearer: string | undefined): Promise<Response> {
  return await fetch(w.resource, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

/** POSTs a revocation request (RFC 7009) with the given form; returns the status. */
export async function revoke(w: OAuthWorld, form: Record<string, string>): Promise<number> {
  const res = await fetch(`${w.origin}/api/auth/oauth2/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  await res.body?.cancel();
  return res.status;
}

/**
 * Whether a real MCP SDK client of `kind` with `accessToken` as bearer gets in: it connects and reads the world's
 * listing. False when the server refuses the token (401/403).
 */
export async function opens(
  w: OAuthWorld,
  accessToken: string,
  kind: ClientKind = "v2-modern",
): Promise<boolean> {
  let client;
  try {
    client = await connectClient(kind, w.resource, accessToken);
  } catch (e) {
    if (/\b40[13]\b|nauthorized|invalid_token|insufficient_scope/i.test(String(e))) return false;
    throw e;
  }
  try {
    const r = await client.callTool("get_property", { id: w.listingId });
    if (r.isError) throw new Error(`get_property failed: ${JSON.stringify(r.content)}`);
    return true;
  } finally {
    await client.close();
  }
}

/**
 * Trusts a fresh signing key (inserted into the JWKS the service reads) and returns a function that mints access
 * tokens with it: `client_id`, `scope: suchen`, `aud` our resource, `sub` the seeker, our issuer, `iat` and
 * `iat_us` now, plus `claims`.
 */
export async function tokenMinter(w: OAuthWorld, clientId: string) {
  const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const pub = await crypto.subtle.exportKey("jwk", keys.publicKey);
  const kid = `test-${crypto.randomUUID()}`;
  await sql`insert into jwks (id, "publicKey", "privateKey", "createdAt", alg, crv)
    values (${kid}, ${JSON.stringify(pub)}, 'unused', '2000-01-01', 'EdDSA', 'Ed25519')`.execute(
    w.tdb.db.kysely,
  );
  return async (claims: Record<string, unknown>, exp = Math.floor(Date.now() / 1000) + 600) =>
    await new SignJWT({
      client_id: clientId,
      scope: "suchen",
      aud: w.resource,
      [ISSUED_US_CLAIM]: await databaseMicros(w.tdb.db),
      ...claims,
    })
      .setProtectedHeader({ alg: "EdDSA", kid, typ: "at+jwt" })
      .setSubject(w.seeker.userId).setIssuer(`${w.origin}/api/auth`).setIssuedAt(
        claims.iat as number | undefined,
      )
      .setExpirationTime(exp).sign(keys.privateKey);
}

/** An OAuthClientProvider (both SDK generations) whose browser is scripted and which counts its sign-ins. */
export class ScriptedOAuthProvider {
  clientInfo: Record<string, unknown> | undefined;
  stored: Record<string, unknown> | undefined;
  verifier = "";
  code: string | undefined;
  iss: string | undefined;
  authorizations = 0;
  constructor(readonly w: OAuthWorld, readonly email: string, readonly scope: string) {}
  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return {
      client_name: `SDK-Test ${this.email}`,
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: this.scope,
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.clientInfo = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: Record<string, unknown>) {
    this.stored = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizations++;
    const b = new JarBrowser(this.w.origin);
    const step = await signInAndConsent(b, await b.open(url.toString()), this.email);
    if (step.kind !== "left") {
      throw new Error(
        `authorization did not return to the app: ${
          step.kind === "page"
            ? step.status + " " + (/class="error"[^>]*>([^<]*)/.exec(step.html)?.[1] ?? "")
            : ""
        }`,
      );
    }
    const back = new URL(step.location);
    this.code = back.searchParams.get("code") ?? undefined;
    this.iss = back.searchParams.get("iss") ?? undefined;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
