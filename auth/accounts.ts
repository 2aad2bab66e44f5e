/**
 * People and offices: creating accounts with a password (operators create providers; seekers sign up through the
 * pages), office membership, and ending it. Passwords are hashed by better-auth (scrypt).
 */
import type { Db } from "../db/connection.ts";
import { leaveOffice, startMembership, userByEmail } from "../db/accounts.ts";
import { connectionsOf } from "../db/oauth.ts";
import { act, type ActDeps, SERVICE } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type Auth, withOwnAdapter } from "./better_auth.ts";
import { disconnectApp } from "./connections.ts";
import { rightOfRole, type Role } from "./principal.ts";

/** A new person: e-mail, display name, password, role; operator-created accounts are verified at once. */
export interface NewPerson {
  email: string;
  name: string;
  password: string;
  role: Role;
  emailVerified?: boolean;
}

/** Creates a person with a better-auth password hash; throws `conflict`-like `invalid_request` when taken. */
export async function createPerson(auth: Auth, db: Db, p: NewPerson): Promise<string> {
  const email = p.email.trim().toLowerCase();
  if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email)) {
    throw new AppError("invalid_request", { field: "email", reason: "not_an_email" });
  }
  if (p.password.length < 10 || p.password.length > 128) {
    throw new AppError("invalid_request", { field: "password", reason: "password_length" });
  }
  if (await userByEmail(db, email)) {
    throw new AppError("invalid_request", { field: "email", reason: "address_taken" });
  }
  const ctx = await auth.$context;
  const hash = await ctx.password.hash(p.password);
  return await withOwnAdapter(auth, async () => {
    const user = await ctx.internalAdapter.createUser({
      email,
      name: p.name.trim() || email,
      emailVerified: p.emailVerified ?? true,
      role: p.role,
    }, { method: "admin" });
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: hash,
    });
    return user.id;
  });
}

/** Adds a provider to an office: an existing person becomes a provider member, else a new account is made. */
export async function addProvider(
  auth: Auth,
  db: Db,
  p: { officeId: string; email: string; name: string; password?: string | undefined },
): Promise<{ userId: string; created: boolean }> {
  const existing = await userByEmail(db, p.email);
  if (existing) {
    await startMembership(db, existing.id, p.officeId);
    return { userId: existing.id, created: false };
  }
  if (!p.password) throw new AppError("invalid_request", { field: "password", reason: "password_required" });
  const userId = await createPerson(auth, db, {
    email: p.email,
    name: p.name,
    password: p.password,
    role: "provider",
  });
  await startMembership(db, userId, p.officeId);
  return { userId, created: true };
}

/**
 * Ends the provider `email`'s work for their office: the membership ends, their API keys are revoked and their
 * account becomes a seeker account again, and every app connected with the provider right is disconnected (its
 * subscriptions end), all in one action. Her provider credentials are refused on their very next use; she can
 * still sign in and use the service as a seeker. Returns whether a membership was active.
 */
export async function removeProvider(deps: ActDeps, email: string): Promise<boolean> {
  const person = await userByEmail(deps.db, email);
  if (!person || person.role !== "provider") return false;
  const providerRight = rightOfRole("provider");
  const apps = (await connectionsOf(deps.db.kysely, person.id)).filter((c) =>
    c.scopes.includes(providerRight)
  );
  return await act(deps, SERVICE, async (a) => {
    const ended = await leaveOffice(a.tx, person.id, a.now);
    for (const c of apps) await disconnectApp(a, person.id, c.clientId);
    return ended;
  });
}
