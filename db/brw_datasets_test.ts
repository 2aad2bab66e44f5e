/** The data migration of land values (0024): zones imported before datasets existed become datasets. */
import assert from "node:assert/strict";
import { listDatasets } from "./brw_datasets.ts";
import { migrate, migrationFiles } from "./migrate.ts";
import { openTestDb } from "../tests/helpers.ts";
import { zoneValueAt } from "../valuation/zones.ts";

Deno.test.sanitizer({ ops: true, resources: true });

Deno.test("migration 0024 turns the zones imported before datasets into one active dataset per state", async () => {
  const old = await openTestDb({ migrated: false });
  try {
    const files = (await migrationFiles()).filter(([v]) => v < "0024");
    await old.db.execScript(
      "create table schema_migrations (version text primary key, applied_at timestamptz not null default now());",
    );
    for (const [version, script] of files) {
      await old.db.execScript(`insert into schema_migrations (version) values ('${version}'); ${script}`);
    }
    const square = '{"type":"Polygon","coordinates":[[[13.0,52.3],[13.1,52.3],[13.1,52.4],[13.0,52.3]]]}';
    await old.db.execScript(
      `insert into brw_zones (state, stichtag, brw, source, licence, geometry, min_lat, max_lat, min_lng, max_lng)
       values ('BB', '2022-01-01', 900, 'Quelle A', 'dl-de/by-2-0', '${square}', 52.3, 52.4, 13.0, 13.1),
              ('BB', '2024-01-01', 1000, 'Quelle B', 'dl-de/by-2-0', '${square}', 52.3, 52.4, 13.0, 13.1);`,
    );
    const later = (await migrationFiles()).map(([v]) => v).filter((v) => v >= "0024");
    assert.deepEqual(await migrate(old.db), later);
    assert.equal(later[0], "0024_brw_datasets");
    const [d] = await listDatasets(old.db);
    assert.deepEqual([d?.state, d?.stichtag, d?.zoneCount, d?.source, d?.licence, d?.layout], [
      "BB",
      "2024-01-01",
      2,
      "Quelle A; Quelle B",
      "dl-de/by-2-0",
      "before_datasets",
    ]);
    assert.equal((await zoneValueAt(old.db, 52.31, 13.08, "house"))?.brw, 1000);
  } finally {
    await old.close();
  }
});
