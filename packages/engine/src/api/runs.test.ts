import { rmSync } from "node:fs";
import path from "node:path";
import { AlreadyExistsError, BadRequestError, DagHasImportErrorsError, DagNotFoundError, DagRunNotFoundError, ParamsInvalidError } from "@svc/errors";
import { createApiFixture, setTi, tisOf, type ApiFixture } from "./test-helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("apiruns");
});
afterAll(async () => {
  await f.close();
});
beforeEach(() => f.notifier.clear());

const runCount = async () =>
  (
    await f.db
      .selectFrom("dag_run")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow()
  ).n;

describe("engine API: triggering runs", () => {
  test("triggerDagRun creates a queued run with defaults applied and one empty task instance per task, then tells the scheduler", async () => {
    const run = await f.api.triggerDagRun("vm_deploy", { conf: { vm_name: "web01" }, runId: "r1", logicalDate: "2024-05-01T10:00:00+00:00", note: "first" });
    expect(run).toMatchObject({ dag_run_id: "r1", state: "queued", run_type: "manual", external_trigger: true, conf: { vm_name: "web01", cpus: 2 }, note: "first" });
    expect(run.logical_date).toBe("2024-05-01T10:00:00.000+00:00");
    expect(run.start_date).toBeNull();
    const tis = await tisOf(f.db, "vm_deploy", "r1");
    expect(Object.keys(tis).sort()).toEqual(["configure", "create", "report", "wait"]);
    expect(tis.wait).toMatchObject({ state: null, try_number: 0, max_tries: 2, operator: "noop" });
    const stored = await f.db.selectFrom("dag_run").select(["definition", "dag_hash"]).where("run_id", "=", "r1").executeTakeFirstOrThrow();
    expect((stored.definition as { dag_id: string }).dag_id).toBe("vm_deploy");
    expect(f.notifier.calls).toEqual(["dag:vm_deploy"]);
  });

  test("the default run id is manual__<ISO logical date> and the logical date defaults to now", async () => {
    const before = Date.now();
    const run = await f.api.triggerDagRun("hello");
    expect(run.dag_run_id).toBe(`manual__${run.logical_date}`);
    expect(new Date(run.logical_date).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  test("conf failing the params schema is rejected naming each field, and nothing is written", async () => {
    const n = await runCount();
    const e1 = await f.api.triggerDagRun("vm_deploy", { conf: {} }).catch((e) => e);
    expect(e1).toBeInstanceOf(ParamsInvalidError);
    expect(e1.fields).toEqual([{ field: "vm_name", message: "is required" }]);
    expect(e1.message).toContain("vm_name");
    const e2 = await f.api.triggerDagRun("vm_deploy", { conf: { vm_name: "Bad Name", cpus: 0 } }).catch((e) => e);
    expect(e2.fields.map((x: { field: string }) => x.field).sort()).toEqual(["cpus", "vm_name"]);
    expect(await runCount()).toBe(n);
    expect(f.notifier.calls).toEqual([]);
  });

  test("a run keeps a snapshot of the definition it was validated against, copied from the DAG row", async () => {
    await f.api.triggerDagRun("hello", { runId: "snap", logicalDate: "2024-02-01T00:00:00Z" });
    const dag = await f.db.selectFrom("dag").select(["definition", "hash"]).where("dag_id", "=", "hello").executeTakeFirstOrThrow();
    const run = await f.db.selectFrom("dag_run").select(["definition", "dag_hash"]).where("run_id", "=", "snap").executeTakeFirstOrThrow();
    expect(run).toEqual({ definition: dag.definition, dag_hash: dag.hash });
    expect((run.definition as { tasks: unknown[] }).tasks).toHaveLength(1);
  });

  test("duplicate run ids and duplicate logical dates are AlreadyExists (409)", async () => {
    await f.api.triggerDagRun("hello", { runId: "dup", logicalDate: "2024-01-01T00:00:00Z" });
    await expect(f.api.triggerDagRun("hello", { runId: "dup" })).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(f.api.triggerDagRun("hello", { runId: "other", logicalDate: "2024-01-01T00:00:00+00:00" })).rejects.toThrow(/logical date/);
  });

  test("bad run ids, bad dates and unknown DAGs are rejected with the field named", async () => {
    await expect(f.api.triggerDagRun("hello", { runId: "has space" })).rejects.toThrow(/dag_run_id/);
    await expect(f.api.triggerDagRun("hello", { logicalDate: "yesterday" })).rejects.toThrow(/logical_date/);
    await expect(f.api.triggerDagRun("hello", { logicalDate: "2024-01-01T00:00:00" })).rejects.toBeInstanceOf(BadRequestError);
    await expect(f.api.triggerDagRun("nope")).rejects.toBeInstanceOf(DagNotFoundError);
  });

  test("a DAG changed since its last trigger is checked as it is now: a new param, a broken file, a removed file", async () => {
    const noop = (ids: string[]) => ids.map((id) => `  - {task_id: ${id}, operator: noop}`).join("\n");
    f.writeDag("changing.yaml", `dag_id: changing\ntasks:\n${noop(["a"])}\n`);
    await f.sync();
    await f.api.triggerDagRun("changing", { runId: "c1" });
    // A param without a default, added after the last trigger: the conf is validated against the new definition.
    f.writeDag("changing.yaml", `dag_id: changing\nparams:\n  who: {type: string}\ntasks:\n${noop(["a", "b"])}\n`);
    await f.sync();
    const missing = await f.api.triggerDagRun("changing", { runId: "c2" }).catch((e) => e);
    expect(missing).toBeInstanceOf(ParamsInvalidError);
    expect(missing.fields).toEqual([{ field: "who", message: "is required" }]);
    await f.api.triggerDagRun("changing", { runId: "c3", conf: { who: "me" } });
    expect(Object.keys(await tisOf(f.db, "changing", "c3")).sort()).toEqual(["a", "b"]);
    // Broken after a trigger: refused by hand; the scheduler's runs go on with the last good definition.
    f.writeDag("changing.yaml", "dag_id: changing\ntasks: [oops\n");
    await f.sync();
    await expect(f.api.triggerDagRun("changing", { runId: "c4", conf: { who: "me" } })).rejects.toBeInstanceOf(DagHasImportErrorsError);
    await f.api.triggerDagRun("changing", { runId: "c5", runType: "scheduled", conf: { who: "me" } });
    await expect(f.api.triggerDagRun("changing", { runId: "c6", conf: { who: "me" } })).rejects.toBeInstanceOf(DagHasImportErrorsError);
    // Mended, triggered, then removed: not found.
    f.writeDag("changing.yaml", `dag_id: changing\nparams:\n  who: {type: string}\ntasks:\n${noop(["a", "b"])}\n`);
    await f.sync();
    await f.api.triggerDagRun("changing", { runId: "c6", conf: { who: "me" } });
    rmSync(path.join(f.dagsDir, "changing.yaml"));
    await f.sync();
    await expect(f.api.triggerDagRun("changing", { runId: "c7", conf: { who: "me" } })).rejects.toBeInstanceOf(DagNotFoundError);
    expect((await f.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "changing").orderBy("run_id").execute()).map((r) => r.run_id)).toEqual(["c1", "c3", "c5", "c6"]);
  });
});

describe("engine API: reading and editing runs", () => {
  beforeAll(async () => {
    for (const [id, day] of [
      ["a", "02"],
      ["b", "03"],
      ["c", "04"],
    ] as const) {
      await f.api.triggerDagRun("vm_deploy", { conf: { vm_name: "x" }, runId: id, logicalDate: `2024-06-${day}T00:00:00Z` });
    }
    await f.db
      .updateTable("dag_run")
      .set({ state: "success", start_date: new Date("2024-06-03T00:01:00Z"), end_date: new Date("2024-06-03T00:02:00Z") })
      .where("run_id", "=", "b")
      .execute();
  });

  test("listDagRuns filters by DAG, state and logical date, orders and pages with total_entries", async () => {
    const all = await f.api.listDagRuns({ dag_id: "vm_deploy", order_by: "-execution_date" });
    expect(all.dag_runs.slice(0, 3).map((r) => r.dag_run_id)).toEqual(["c", "b", "a"]);
    expect((await f.api.listDagRuns({ dag_id: "vm_deploy", state: ["success"] })).dag_runs.map((r) => r.dag_run_id)).toEqual(["b"]);
    const range = await f.api.listDagRuns({ dag_id: "~", execution_date_gte: "2024-06-03T00:00:00Z", execution_date_lte: "2024-06-04T00:00:00Z" });
    expect(range.dag_runs.map((r) => r.dag_run_id).sort()).toEqual(["b", "c"]);
    const page = await f.api.listDagRuns({ dag_id: "vm_deploy", order_by: "dag_run_id", limit: 1, offset: 1 });
    expect(page.dag_runs.map((r) => r.dag_run_id)).toEqual(["b"]);
    expect(page.total_entries).toBe(all.total_entries);
    expect((await f.api.listDagRuns({ dag_ids: ["hello"] })).dag_runs.every((r) => r.dag_id === "hello")).toBe(true);
  });

  test("listDagRuns rejects unknown states and DAGs", async () => {
    await expect(f.api.listDagRuns({ state: ["exploded"] })).rejects.toThrow(/state/);
    await expect(f.api.listDagRuns({ dag_id: "nope" })).rejects.toBeInstanceOf(DagNotFoundError);
  });

  test("getDagRun, setRunNote and deleteDagRun work on existing runs and 404 on others", async () => {
    expect((await f.api.getDagRun("vm_deploy", "a")).state).toBe("queued");
    expect((await f.api.setRunNote("vm_deploy", "a", "looked at it")).note).toBe("looked at it");
    await expect(f.api.getDagRun("vm_deploy", "zzz")).rejects.toBeInstanceOf(DagRunNotFoundError);
    await expect(f.api.setRunNote("vm_deploy", "zzz", "x")).rejects.toBeInstanceOf(DagRunNotFoundError);
    await f.api.deleteDagRun("vm_deploy", "a");
    expect(await tisOf(f.db, "vm_deploy", "a")).toEqual({});
    expect(f.notifier.calls).toEqual(["dag:vm_deploy"]);
    await expect(f.api.deleteDagRun("vm_deploy", "a")).rejects.toBeInstanceOf(DagRunNotFoundError);
  });
});

describe("engine API: marking and clearing runs", () => {
  const version = async (runId: string) => (await f.db.selectFrom("dag_run").select("version").where("run_id", "=", runId).executeTakeFirstOrThrow()).version;

  test("markRun success marks unfinished task instances success, ends the run, bumps the version and notifies", async () => {
    await f.api.triggerDagRun("vm_deploy", { conf: { vm_name: "x" }, runId: "ms" });
    await setTi(f.db, "vm_deploy", "ms", "create", { state: "failed", try_number: 1 });
    await setTi(f.db, "vm_deploy", "ms", "wait", { state: "running", try_number: 1, worker_id: "w1" });
    const v0 = await version("ms");
    f.notifier.clear();
    const run = await f.api.markRun("vm_deploy", "ms", "success");
    expect(run.state).toBe("success");
    expect(run.end_date).not.toBeNull();
    const tis = await tisOf(f.db, "vm_deploy", "ms");
    expect([tis.create!.state, tis.wait!.state, tis.configure!.state, tis.report!.state]).toEqual(["failed", "success", "success", "success"]);
    expect(tis.wait!.worker_id).toBeNull();
    expect(await version("ms")).toBe(v0 + 1);
    expect(f.notifier.calls).toEqual([`run:vm_deploy:ms:${v0 + 1}`, "dag:vm_deploy"]);
  });

  test("markRun failed fails running and queued task instances and skips the other unfinished ones", async () => {
    await f.api.triggerDagRun("vm_deploy", { conf: { vm_name: "x" }, runId: "mf" });
    await setTi(f.db, "vm_deploy", "mf", "create", { state: "success", try_number: 1 });
    await setTi(f.db, "vm_deploy", "mf", "wait", { state: "running", try_number: 1 });
    await setTi(f.db, "vm_deploy", "mf", "configure", { state: "queued", try_number: 1 });
    const run = await f.api.markRun("vm_deploy", "mf", "failed");
    expect(run.state).toBe("failed");
    const tis = await tisOf(f.db, "vm_deploy", "mf");
    expect([tis.create!.state, tis.wait!.state, tis.configure!.state, tis.report!.state]).toEqual(["success", "failed", "failed", "skipped"]);
  });

  test("markRun queued re-queues the run without touching task instances; bad states are rejected", async () => {
    const run = await f.api.markRun("vm_deploy", "mf", "queued");
    expect(run).toMatchObject({ state: "queued", end_date: null });
    expect((await tisOf(f.db, "vm_deploy", "mf")).wait!.state).toBe("failed");
    await expect(f.api.markRun("vm_deploy", "mf", "running" as never)).rejects.toThrow(/state/);
    await expect(f.api.markRun("vm_deploy", "nope", "success")).rejects.toBeInstanceOf(DagRunNotFoundError);
  });

  test("clearDagRun with dry run lists the task instances and changes nothing", async () => {
    const v0 = await version("ms");
    f.notifier.clear();
    const out = await f.api.clearDagRun("vm_deploy", "ms", { dryRun: true });
    expect("task_instances" in out && out.task_instances.map((t) => t.task_id)).toEqual(["configure", "create", "report", "wait"]);
    expect(await version("ms")).toBe(v0);
    expect(f.notifier.calls).toEqual([]);
  });

  test("clearDagRun resets every task instance, keeps try numbers, re-queues the finished run and notifies", async () => {
    await setTi(f.db, "vm_deploy", "ms", "wait", { try_number: 3, next_retry_at: new Date(), duration: 5 });
    const v0 = await version("ms");
    f.notifier.clear();
    const run = await f.api.clearDagRun("vm_deploy", "ms", { dryRun: false });
    expect(run).toMatchObject({ dag_run_id: "ms", state: "queued", end_date: null, start_date: null });
    const tis = await tisOf(f.db, "vm_deploy", "ms");
    expect(Object.values(tis).every((t) => t.state === null && t.end_date === null && t.duration === null)).toBe(true);
    expect(tis.wait).toMatchObject({ try_number: 3, max_tries: 5, next_retry_at: null });
    expect(tis.create).toMatchObject({ try_number: 1, max_tries: 1 });
    expect(f.notifier.calls).toEqual([`run:vm_deploy:ms:${v0 + 1}`, "dag:vm_deploy"]);
  });
});
