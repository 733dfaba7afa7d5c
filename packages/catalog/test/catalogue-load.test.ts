import { parseDagFolder } from "@svc/dags";
import { createQueueNotifier, syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, type TestDb, type TestRedis } from "@svc/testing";
import { CATALOG_DAG_IDS, CATALOG_PATHS } from "../src/paths";
import { TEST_SETTINGS } from "./settings";

test("every DAG file in dags/ loads with the real operator registry, and they are exactly the eight", async () => {
  const results = await parseDagFolder(CATALOG_PATHS.dagsDir, { catalog: defaultOperators(), settings: TEST_SETTINGS });
  const problems = results.flatMap((r) => (r.ok ? [] : [{ file: r.fileloc, problems: r.problems.map((p) => `${p.line ?? "-"}: ${p.message}`) }]));
  expect(problems).toEqual([]);
  expect(results.map((r) => (r.ok ? r.dag.dag_id : "")).sort()).toEqual([...CATALOG_DAG_IDS].sort());
});

test("only infrastructure_health_check has a schedule, every 6 hours", async () => {
  const results = await parseDagFolder(CATALOG_PATHS.dagsDir, { catalog: defaultOperators(), settings: TEST_SETTINGS });
  const schedules = Object.fromEntries(results.flatMap((r) => (r.ok ? [[r.dag.dag_id, r.dag.schedule]] : [])));
  expect(schedules).toEqual(Object.fromEntries(CATALOG_DAG_IDS.map((id) => [id, id === "infrastructure_health_check" ? "0 */6 * * *" : null])));
});

describe("synced into the metadata database", () => {
  let tdb: TestDb;
  let redis: TestRedis;
  let queues: Queues;
  beforeAll(async () => {
    tdb = await createTestDb("catload");
    redis = createTestRedis("catload");
    queues = createQueues({ url: redis.url, prefix: redis.prefix });
  });
  afterAll(async () => {
    await queues?.close();
    await redis?.cleanup();
    await tdb?.drop();
  });

  test("syncDagFolder adds the eight DAGs with no import errors, all paused", async () => {
    const report = await syncDagFolder({ db: tdb.db, dagsDir: CATALOG_PATHS.dagsDir, catalog: defaultOperators(), settings: TEST_SETTINGS, notifier: createQueueNotifier(queues) });
    expect(report.errors).toEqual([]);
    expect(report.added.sort()).toEqual([...CATALOG_DAG_IDS].sort());
    const rows = await tdb.db.selectFrom("dag").select(["dag_id", "is_paused", "is_active"]).orderBy("dag_id").execute();
    expect(rows).toEqual([...CATALOG_DAG_IDS].sort().map((dag_id) => ({ dag_id, is_paused: true, is_active: true })));
    expect(await tdb.db.selectFrom("import_error").selectAll().execute()).toEqual([]);
  });
});
