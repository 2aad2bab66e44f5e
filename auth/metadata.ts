/**
 * The discovery documents, saying what the service really does: RFC 9728 protected-resource metadata of the MCP
 * endpoint (built here), and better-auth's RFC 8414 authorization-server metadata with the fields corrected that
 * do not hold for this service.
 */
import type { Config } from "../config.ts";
import { issuer, mcpResource, SCOPES } from "./auth_settings.ts";

/**
 * RFC 9728 metadata of `/mcp`. better-auth's lists the scopes without `offline_access` (it counts it as an
 * authorization-server scope) and DPoP algorithms; clients that start authorization from this document (without
 * a 401 challenge) take its scopes, and would get no refresh token. The endpoint accepts bearer tokens in the
 * `Authorization` header only.
 */
export function protectedResourceMetadata(config: Config): Record<string, unknown> {
  return {
    resource: mcpResource(config),
    authorization_servers: [issuer(config)],
    bearer_methods_supported: ["header"],
    scopes_supported: [...SCOPES],
    resource_name: "Immobilienkatalog MCP",
  };
}

/** Fields of better-auth's document for endpoints and methods this service does not offer. */
const NOT_OFFERED = [
  // The introspection endpoint is not reachable from outside (routes/oauth.ts).
  "introspection_endpoint",
  "introspection_endpoint_auth_methods_supported",
  "introspection_endpoint_auth_signing_alg_values_supported",
  // The MCP endpoint takes bearer tokens only; a DPoP-bound token would be refused there.
  "dpop_signing_alg_values_supported",
];

/**
 * better-auth's RFC 8414 document, corrected: public clients (`none`) can revoke their tokens with their
 * `client_id`, and the endpoints and methods not offered are left out.
 */
export function authorizationServerMetadata(doc: Record<string, unknown>): Record<string, unknown> {
  const out = { ...doc };
  for (const field of NOT_OFFERED) delete out[field];
  const methods = Array.isArray(doc.revocation_endpoint_auth_methods_supported)
    ? doc.revocation_endpoint_auth_methods_supported
    : [];
  out.revocation_endpoint_auth_methods_supported = ["none", ...methods.filter((m) => m !== "none")];
  return out;
}
