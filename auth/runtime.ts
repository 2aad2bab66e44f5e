/**
 * The state authentication keeps between requests, created once per app (`createApp`, or `main.ts` before it) and
 * carried in `AppDeps.authRuntime`: the access-token verifier (JWKS and verified tokens) and the batched API-key
 * lookups. Nothing of it lives at module level, so two apps in one process (tests) never share it.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import { KeyLookup } from "./api_keys.ts";
import { AccessTokenVerifier } from "./oauth_tokens.ts";

/** The per-app state of authentication. */
export interface AuthRuntime {
  /** Checks the signature and claims of OAuth access tokens (JWKS and verified tokens of this app). */
  tokens: AccessTokenVerifier;
  /** Batches the API-key lookups of concurrent calls of this app. */
  keys: KeyLookup;
}

/** A new authentication runtime over `db`, for the issuer and resource of `config`. */
export function createAuthRuntime(deps: { db: Db; config: Config }): AuthRuntime {
  return { tokens: new AccessTokenVerifier(deps.db, deps.config), keys: new KeyLookup(deps.db) };
}
