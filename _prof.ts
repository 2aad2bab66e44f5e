const t0 = performance.now();
const { createApp } = await import("./app.ts");
const t1 = performance.now();
const { configFromEnv } = await import("./config.ts");
const { openDb } = await import("./db/connection.ts");
const { openKv } = await import("./db/kv.ts");
const { pendingMigrations } = await import("./db/migrate_check.ts");
const { TokenBuckets } = await import("./db/token_bucket.ts");
const { kvPseudonyms } = await import("./db/kv_keys.ts");
const { createLogger } = await import("./log.ts");
const { lazyAuth } = await import("./auth/auth_handle.ts");
const { createAuthRuntime } = await import("./auth/runtime.ts");
const { agentReactions } = await import("./agent/hooks.ts");
const t2 = performance.now();
const config = configFromEnv();
const log = createLogger("warn");
const db = await openDb({ databaseUrl: config.databaseUrl });
const t3 = performance.now();
await pendingMigrations(db);
const t4 = performance.now();
const kv = await openKv(config.kvPath);
const t5 = performance.now();
const deps = {
  config,
  db,
  kv,
  buckets: new TokenBuckets(kv, { pseudonym: kvPseudonyms(config.authSecret!) }),
  log,
  auth: lazyAuth({ config, db, log }),
  authRuntime: createAuthRuntime({ config, db }),
  reactions: agentReactions,
};
const app = createApp(deps as any);
const t6 = performance.now();
const r1 = await app.request("/api/public/properties");
const t7 = performance.now();
const r2 = await app.request("/api/public/properties");
const t8 = performance.now();
console.log({
  importApp: t1 - t0,
  importRest: t2 - t1,
  openDb: t3 - t2,
  pending: t4 - t3,
  kv: t5 - t4,
  createApp: t6 - t5,
  first: t7 - t6,
  second: t8 - t7,
  status: r1.status,
});
await db.close();
kv.close();
Deno.exit(0);
