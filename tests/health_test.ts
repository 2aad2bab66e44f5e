/** GET /healthz reports database and KV reachability. */
import assert from "node:assert/strict";
import { getJson, openTestDb, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

Deno.test("healthz: 200 when database and KV answer, 503 naming the part that does not", async () => {
  const tdb = await openTestDb();
  const t = await testApp(tdb.db);
  assert.deepEqual(await getJson(t.app, "/healthz").then((r) => [r.status, r.body]), [
    200,
    { status: "ok", database: "ok", kv: "ok" },
  ]);
  t.kv.close(); // on purpose; the app holds nothing else, so it is not closed again
  assert.deepEqual(await getJson(t.app, "/healthz").then((r) => [r.status, r.body]), [
    503,
    { status: "unavailable", database: "ok", kv: "unreachable" },
  ]);
  await using t2 = await testApp(tdb.db);
  await tdb.close();
  assert.deepEqual(await getJson(t2.app, "/healthz").then((r) => [r.status, r.body.database]), [
    503,
    "unreachable",
  ]);
});
