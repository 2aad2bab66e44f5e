/**
 * The better-auth instance of an app behind a handle: created, and its plugins initialised, on first use
 * (docs/architecture.md §11.17). A process that starts for a catalogue request never loads better-auth; the first
 * sign-in, page or OAuth call does, once.
 */
import type { Auth, AuthDeps } from "./better_auth.ts";

/** The app's better-auth instance, made on first use. */
export interface AuthHandle {
  /** The instance with its plugins initialised (made on the first call; a failed start is tried again). */
  get(): Promise<Auth>;
  /**
   * Runs `fn` with the instance as better-auth's current one: its own database adapter and a fresh request state
   * (`withOwnAdapter` of `auth/better_auth.ts`).
   */
  run<T>(fn: (auth: Auth) => Promise<T>): Promise<T>;
}

type Loaded = { auth: Auth; module: typeof import("./better_auth.ts") };

/** A handle that makes the instance of `deps` on first use. */
export function lazyAuth(deps: AuthDeps): AuthHandle {
  return handleOver(async () => {
    const module = await import("./better_auth.ts");
    return { auth: module.createAuth(deps), module };
  });
}

/** A handle over an instance made already (operator tasks and tests make theirs). */
export function authHandleOf(auth: Auth): AuthHandle {
  return handleOver(async () => ({ auth, module: await import("./better_auth.ts") }));
}

function handleOver(make: () => Promise<Loaded>): AuthHandle {
  let loading: Promise<Loaded> | undefined;
  const load = () =>
    loading ??= make().then(async (l) => {
      await l.auth.$context; // plugin initialisation (seeds the MCP resource row) fails here, and is tried again
      return l;
    }).catch((err) => {
      loading = undefined;
      throw err;
    });
  return {
    get: async () => (await load()).auth,
    run: async (fn) => {
      const { auth, module } = await load();
      return await module.withOwnAdapter(auth, () => fn(auth));
    },
  };
}
