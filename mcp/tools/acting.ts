/**
 * How an MCP tool writes: as one action (`act`, `deps.ts`) of the authenticated caller, with the app or key the
 * call came through as its origin.
 */
import { act, type Action, type Actor, type AppDeps, type Who } from "../../deps.ts";
import { officeOf, type Principal } from "../../auth/principal.ts";

/**
 * Who acts for an MCP call (`act`): a provider for their office (`not_found` without an active membership), or a
 * seeker; the app or key the call came through is the origin (a page session has none).
 */
export function whoOf(principal: Principal): Who {
  const o = principal.origin;
  const origin = o.kind === "web"
    ? null
    : o.kind === "oauth"
    ? { clientId: o.clientId }
    : { apiKeyId: o.keyId };
  const actor: Actor = principal.right === "lesen"
    ? { kind: "provider", userId: principal.userId, officeId: officeOf(principal) }
    : { kind: "seeker", userId: principal.userId };
  return { actor, origin };
}

/** Runs the write `fn` as one action of `principal` (`act` with {@linkcode whoOf}): the MCP tools' way to write. */
export function actAs<T>(deps: AppDeps, principal: Principal, fn: (a: Action) => Promise<T>): Promise<T> {
  return act(deps, whoOf(principal), fn);
}
