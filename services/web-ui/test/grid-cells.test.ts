import { sql } from "kysely";
import { apiCellLoader } from "../src/ui/grid-data";
import { gridCellsFromDb } from "../src/ui/grid-query";
import { createWebFixture, type WebFixture } from "./helpers";

// The grid reads its squares straight from the database; the REST API serializes the same task
// instances. Both must say the same, times included.
let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webcells");
  await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "timed-1", conf: { vm_name: "x" } }).expect(200);
  const set = (taskId: string, start: string, end: string | null, duration: number | null) =>
    f.db
      .updateTable("task_instance")
      .set({ state: end ? "success" : "running", try_number: 1, start_date: new Date(start), end_date: end === null ? null : new Date(end), duration })
      .where("run_id", "=", "timed-1")
      .where("task_id", "=", taskId)
      .execute();
  await set("create", "2026-01-02T03:04:05.678Z", "2026-01-02T03:04:07.000Z", 1.322);
  await set("wait", "2026-12-31T23:59:59.999Z", null, null);
  // Microseconds the API's Dates cannot carry: both sides must cut them the same way.
  await sql`update task_instance set state = 'failed', try_number = 2, start_date = '2026-01-02 03:04:07.123999+00', end_date = '2026-01-02 03:04:08.0005+00'
    where run_id = 'timed-1' and task_id = 'report'`.execute(f.db);
});
afterAll(async () => f?.close());

test("grid: squares read from the database carry the same times, states and tries as the REST API's task instances", async () => {
  const byTask = (cells: { task_id: string }[]) => Object.fromEntries(cells.map((c) => [c.task_id, c]));
  const fromDb = byTask(await gridCellsFromDb(f.db, "vm_deploy", ["timed-1"]));
  const fromApi = byTask(await apiCellLoader(f.api)("vm_deploy", ["timed-1"]));
  expect(Object.keys(fromDb).sort()).toEqual(Object.keys(fromApi).sort());
  expect(fromDb).toEqual(fromApi);
  expect(fromDb.create).toMatchObject({ start_date: "2026-01-02T03:04:05.678+00:00", end_date: "2026-01-02T03:04:07.000+00:00", duration: 1.322 });
  expect(fromDb.wait).toMatchObject({ start_date: "2026-12-31T23:59:59.999+00:00", end_date: null });
  expect(fromDb.report).toMatchObject({ state: "failed", try_number: 2, start_date: "2026-01-02T03:04:07.123+00:00", end_date: "2026-01-02T03:04:08.000+00:00" });
});
