/** The Hono environment shared by every route: bindings from `Deno.serve` and per-request variables. */

/** Hono's environment type of this app. */
export interface AppEnv {
  Bindings: Partial<Deno.ServeHandlerInfo>;
  Variables: {
    /** Random id of this request, sent back as `x-request-id` and written with every log line. */
    requestId: string;
    /** The signed-in account, when a later middleware has authenticated the caller. */
    accountId?: string;
    /** Set once the write bucket counted this request (several sub-apps' middleware may meet it). */
    writeCounted?: boolean;
  };
}
