import request from "supertest";
import { apiCellLoader } from "../src/ui/grid-data";
import { gridCellsFromDb } from "../src/ui/grid-query";
import { AUTH, createWebFixture, type WebFixture } from "./helpers";

// A run of `hello` linked to task `create` of a vm_deploy run, as trigger_dag_run links the run it creates.
let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webtrig");
  await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "parent-1", conf: { vm_name: "x" } }).expect(200);
  await f.post("/api/v1/dags/hello/dagRuns", { dag_run_id: "child-1" }).expect(200);
  await f.db
    .updateTable("dag_run")
    .set({ parent_dag_id: "vm_deploy", parent_run_id: "parent-1", parent_task_id: "create", parent_try_number: 1 })
    .where("run_id", "=", "child-1")
    .execute();
  await f.db.updateTable("task_instance").set({ state: "up_for_reschedule", try_number: 1 }).where("run_id", "=", "parent-1").where("task_id", "=", "create").execute();
});
afterAll(async () => f?.close());

test("REST: the task instance lists the run it triggered, and that run names the task instance that triggered it", async () => {
  const ti = await f.get("/api/v1/dags/vm_deploy/dagRuns/parent-1/taskInstances/create").expect(200);
  expect(ti.body).toMatchObject({ state: "up_for_reschedule", triggered_dag_runs: [{ dag_id: "hello", dag_run_id: "child-1", try_number: 1, state: "queued" }] });
  const other = await f.get("/api/v1/dags/vm_deploy/dagRuns/parent-1/taskInstances/wait").expect(200);
  expect(other.body.triggered_dag_runs).toEqual([]);
  const child = await f.get("/api/v1/dags/hello/dagRuns/child-1").expect(200);
  expect(child.body.triggered_by).toEqual({ dag_id: "vm_deploy", dag_run_id: "parent-1", task_id: "create", try_number: 1 });
  const parent = await f.get("/api/v1/dags/vm_deploy/dagRuns/parent-1").expect(200);
  expect(parent.body.triggered_by).toBeNull();
});

test("grid: the square of the triggering task names the child run in its hover text and shows the rescheduled state; the child's run data carries its parent", async () => {
  const res = await request(f.app).get("/dags/vm_deploy/grid").auth(AUTH.adminUser!, AUTH.adminPassword!).expect(200);
  expect(res.text).toContain('<td class="sq s-up_for_reschedule" title="create up_for_reschedule · try 1 · triggered hello / child-1 (queued)">');
  const child = await request(f.app).get("/dags/hello/grid").auth(AUTH.adminUser!, AUTH.adminPassword!).expect(200);
  expect(child.text).toContain('"triggered_by":{"dag_id":"vm_deploy","dag_run_id":"parent-1","task_id":"create","try_number":1}');
});

test("grid data: the squares read from the database carry the same child run as those read through the API", async () => {
  const byTask = (cells: { task_id: string }[]) => Object.fromEntries(cells.map((c) => [c.task_id, c]));
  const fromDb = byTask(await gridCellsFromDb(f.db, "vm_deploy", ["parent-1"]));
  const fromApi = byTask(await apiCellLoader(f.api)("vm_deploy", ["parent-1"]));
  expect(fromDb.create).toMatchObject({ state: "up_for_reschedule", child: { dag_id: "hello", dag_run_id: "child-1", state: "queued" } });
  expect(fromDb.create).toEqual(fromApi.create);
  expect(fromDb.wait).toMatchObject({ child: null });
});
