import request from "supertest";
import { apiCellLoader } from "../src/ui/grid-data";
import { gridCellsFromDb } from "../src/ui/grid-query";
import { AUTH, createWebFixture, type WebFixture } from "./helpers";

// A run whose `create` task was routed to hypervisor host `lab2` (task_instance.host, as a worker records it).
let f: WebFixture;
beforeAll(async () => {
  f = await createWebFixture("webhosts");
  await f.post("/api/v1/dags/vm_deploy/dagRuns", { dag_run_id: "routed-1", conf: { vm_name: "x" } }).expect(200);
  await f.db.updateTable("task_instance").set({ state: "running", try_number: 1, host: "lab2" }).where("run_id", "=", "routed-1").where("task_id", "=", "create").execute();
});
afterAll(async () => f?.close());

test("REST: a task routed to a host shows that host's queue as its Airflow queue; the others the default queue", async () => {
  const routed = await f.get("/api/v1/dags/vm_deploy/dagRuns/routed-1/taskInstances/create").expect(200);
  expect(routed.body.queue).toBe("tasks@lab2");
  const other = await f.get("/api/v1/dags/vm_deploy/dagRuns/routed-1/taskInstances/wait").expect(200);
  expect(other.body.queue).toBe("default");
});

test("grid: the square of a routed task names its host, read alike from the database and through the API", async () => {
  const res = await request(f.app).get("/dags/vm_deploy/grid").auth(AUTH.adminUser!, AUTH.adminPassword!).expect(200);
  expect(res.text).toContain('<td class="sq s-running" title="create running · try 1 · on host lab2">');
  const byTask = (cells: { task_id: string }[]) => Object.fromEntries(cells.map((c) => [c.task_id, c]));
  const fromDb = byTask(await gridCellsFromDb(f.db, "vm_deploy", ["routed-1"]));
  const fromApi = byTask(await apiCellLoader(f.api)("vm_deploy", ["routed-1"]));
  expect(fromDb.create).toMatchObject({ host: "lab2" });
  expect(fromDb.create).toEqual(fromApi.create);
  expect(fromDb.wait).toMatchObject({ host: null });
});
