/** Connections between a person and an app (OAuth consents): disconnecting ends them at once. */
import { deleteConnection } from "../db/oauth.ts";
import type { Action } from "../deps.ts";

/**
 * Disconnects `clientId` from the person `userId` within action `a` (the person on the apps page, or the service
 * when an operator ends a provider's work): consent, refresh and access tokens go with the action; JWT access
 * tokens still in circulation are refused on their next use (no consent, and a grant cutoff that also holds when
 * the person connects the app again at once). Returns whether a connection existed; logs it after the commit.
 */
export async function disconnectApp(a: Action, userId: string, clientId: string): Promise<boolean> {
  const existed = await deleteConnection(a.tx, userId, clientId, a.now);
  if (existed) a.afterCommit(() => a.deps.log.log("info", "app disconnected", { userId, clientId }));
  return existed;
}
