import { BadRequestError, DagNotFoundError } from "@svc/errors";
import { createApiFixture, setTi, tisOf, type ApiFixture } from "./test-helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("apiclear");
  for (const [id, day] of [
    ["r1", "01"],
    ["r2", "02"],
    ["r3", "03"],
  ] as const) {
    await f.api.triggerDagRun("vm_deploy", { conf: { vm_name: "x" }, runId: id, logicalDate: `2024-07-${day}T00:00:00Z` });
    // Each run failed at `wait`: create succeeded, the rest never ran.
    await setTi(f.db, "vm_deploy", id, "create", { state: "success", try_number: 1 });
    await setTi(f.db, "vm_deploy", id, "wait", { state: "failed", try_number: 3, end_date: new Date() });
    await setTi(f.db, "vm_deploy", id, "configure", { state: "upstream_failed" });
    await setTi(f.db, "vm_deploy", id, "report", { state: "upstream_failed" });
    await f.db.updateTable("dag_run").set({ state: "failed", end_date: new Date() }).where("run_id", "=", id).execute();
  }
});
afterAll(async () => {
  await f.close();
});
beforeEach(() => f.notifier.clear());

const refs = (out: { task_instances: { dag_run_id: string; task_id: string }[] }) => out.task_instances.map((t) => `${t.dag_run_id}/${t.task_id}`);

describe("engine API: clearTaskInstances", () => {
  test("defaults are Airflow's: dry run, only failed (and upstream_failed), every run of the DAG", async () => {
    const out = await f.api.clearTaskInstances("vm_deploy");
    expect(refs(out)).toEqual(["r1/configure", "r1/report", "r1/wait", "r2/configure", "r2/report", "r2/wait", "r3/configure", "r3/report", "r3/wait"]);
    expect(out.task_instances[0]!.execution_date).toBe("2024-07-01T00:00:00.000+00:00");
    expect((await tisOf(f.db, "vm_deploy", "r1")).wait!.state).toBe("failed");
    expect(f.notifier.calls).toEqual([]);
  });

  test("dag_run_id limits to one run; include_future / include_past widen it by logical date", async () => {
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r2", task_ids: ["wait"] }))).toEqual(["r2/wait"]);
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r2", task_ids: ["wait"], include_future: true }))).toEqual(["r2/wait", "r3/wait"]);
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r2", task_ids: ["wait"], include_past: true }))).toEqual(["r1/wait", "r2/wait"]);
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { start_date: "2024-07-03T00:00:00Z", task_ids: ["wait"] }))).toEqual(["r3/wait"]);
  });

  test("include_upstream adds upstream tasks (filtered by only_failed unless disabled)", async () => {
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r1", task_ids: ["wait"], include_upstream: true }))).toEqual(["r1/wait"]);
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r1", task_ids: ["wait"], include_upstream: true, only_failed: false }))).toEqual([
      "r1/create",
      "r1/wait",
    ]);
  });

  test("a real clear with include_downstream resets the chain, re-queues the run and notifies the scheduler", async () => {
    const out = await f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r1", task_ids: ["wait"], include_downstream: true, dry_run: false });
    expect(refs(out)).toEqual(["r1/configure", "r1/report", "r1/wait"]);
    const tis = await tisOf(f.db, "vm_deploy", "r1");
    expect(tis.create!.state).toBe("success");
    expect(tis.wait).toMatchObject({ state: null, try_number: 3, max_tries: 5, end_date: null });
    expect(tis.configure!.state).toBeNull();
    const run = await f.db.selectFrom("dag_run").select(["state", "end_date", "version"]).where("run_id", "=", "r1").executeTakeFirstOrThrow();
    expect(run).toMatchObject({ state: "queued", end_date: null });
    expect(f.notifier.calls).toEqual([`run:vm_deploy:r1:${run.version}`, "dag:vm_deploy"]);
  });

  test("only_running selects running task instances only", async () => {
    await setTi(f.db, "vm_deploy", "r2", "create", { state: "running" });
    expect(refs(await f.api.clearTaskInstances("vm_deploy", { only_failed: false, only_running: true }))).toEqual(["r2/create"]);
  });

  test("unknown tasks, dag_run_id with dates, and unknown DAGs are rejected", async () => {
    await expect(f.api.clearTaskInstances("vm_deploy", { task_ids: ["nope"] })).rejects.toThrow(/task_ids: unknown task\(s\) 'nope'/);
    await expect(f.api.clearTaskInstances("vm_deploy", { dag_run_id: "r1", start_date: "2024-01-01T00:00:00Z" })).rejects.toBeInstanceOf(BadRequestError);
    await expect(f.api.clearTaskInstances("nope")).rejects.toBeInstanceOf(DagNotFoundError);
  });
});
