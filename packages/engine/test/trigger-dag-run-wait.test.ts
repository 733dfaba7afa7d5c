import { triggerDagRunOperator } from "./fixtures/operators";
import { type OperatorContext } from "../src/ports";
import { isRescheduleTry } from "../src/ports/reschedule";
import { createDagRunsPort } from "../src/runtime/dag-runs-port";
import { createHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await createHarness("trigwait");
  // Runs until someone stops it: its one task failed and waits an hour for its retry (no slot held).
  h.writeDag("stuck_child.yaml", `dag_id: stuck_child\ntasks:\n  - {task_id: stuck, operator: fail, args: {message: not yet}, retries: 1, retry_delay: 1h}\n`);
  h.writeDag("quick_child.yaml", `dag_id: quick_child\ntasks:\n  - {task_id: a, operator: sleep, args: {seconds: 0.1}}\n`);
  h.writeDag(
    "impatient.yaml",
    `dag_id: impatient\ntasks:\n  - {task_id: run_child, operator: trigger_dag_run, args: {trigger_dag_id: stuck_child, poke_interval: 1, timeout: 2}}\n`,
  );
  h.writeDag("reruns.yaml", `dag_id: reruns\ntasks:\n  - {task_id: run_child, operator: trigger_dag_run, args: {trigger_dag_id: quick_child, poke_interval: 1}}\n`);
  await h.sync();
  for (const d of ["stuck_child", "quick_child", "impatient", "reruns"]) await h.api.setPaused(d, false);
  h.startRuntime();
});

afterAll(async () => h?.close());

const childRuns = (dagId: string, runId: string) =>
  h.db.selectFrom("dag_run").selectAll().where("parent_dag_id", "=", dagId).where("parent_run_id", "=", runId).orderBy("parent_try_number").execute();

test("a child still running at the timeout fails the parent's task, naming the child run, which is left running", async () => {
  await h.api.triggerDagRun("impatient", { runId: "late-1" });
  expect((await h.waitRun("impatient", "late-1")).state).toBe("failed");
  const [child, ...others] = await childRuns("impatient", "late-1");
  expect(others).toEqual([]);
  const ti = (await h.tis("impatient", "late-1")).run_child!;
  expect([ti.state, ti.try_number]).toEqual(["failed", 1]);
  expect(ti.error).toBe(`timeout of 2s waiting for run ${child!.run_id} of DAG stuck_child: it is still running and was left running (mark it failed to stop it)`);
  expect(child!.state).toBe("running");
  await h.api.markRun("stuck_child", child!.run_id, "failed");
});

test("clearing the parent's task runs a new try that triggers a new child run; the first child stays, linked to try 1", async () => {
  await h.api.triggerDagRun("reruns", { runId: "clear-1" });
  expect((await h.waitRun("reruns", "clear-1")).state).toBe("success");
  await h.api.clearTaskInstances("reruns", { dry_run: false, dag_run_id: "clear-1", task_ids: ["run_child"], only_failed: false });
  expect((await h.waitRun("reruns", "clear-1")).state).toBe("success");
  const runs = await childRuns("reruns", "clear-1");
  expect(runs.map((r) => [r.dag_id, r.parent_try_number, r.state])).toEqual([
    ["quick_child", 1, "success"],
    ["quick_child", 2, "success"],
  ]);
  expect(runs[0]!.run_id).not.toBe(runs[1]!.run_id);
  const ti = await h.api.getTaskInstance("reruns", "clear-1", "run_child");
  expect(ti.try_number).toBe(2);
  expect(ti.triggered_dag_runs.map((r) => [r.try_number, r.dag_run_id])).toEqual([
    [1, runs[0]!.run_id],
    [2, runs[1]!.run_id],
  ]);
  expect(await h.logs("reruns", "clear-1", "run_child", 1)).toContain(`triggered run ${runs[0]!.run_id} of DAG quick_child`);
  expect(await h.logs("reruns", "clear-1", "run_child", 2)).toContain(`triggered run ${runs[1]!.run_id} of DAG quick_child`);
});

test("a second delivery of the same try finds the child run the first one made instead of making another; the next try makes its own", async () => {
  const deps = h.runtimeDeps("test");
  const poke = async (tryNumber: number) => {
    const job = { dagId: "dup_parent", runId: "dup-1", taskId: "run_child", tryNumber };
    const lines: string[] = [];
    const ctx: OperatorContext = { ...job, params: {}, config: h.config, signal: new AbortController().signal, log: (l) => lines.push(l), dagRuns: createDagRunsPort(deps, job) };
    const args = triggerDagRunOperator.args.parse({ trigger_dag_id: "stuck_child", poke_interval: 5 });
    const err = await triggerDagRunOperator.run(args, ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isRescheduleTry(err)) throw new Error(`expected a reschedule, got ${String(err)}`);
    return { lines, runId: err.output.trigger_run_id as string };
  };
  const first = await poke(1);
  const again = await poke(1);
  expect(first.lines).toContain(`triggered run ${first.runId} of DAG stuck_child`);
  expect(again.runId).toBe(first.runId);
  expect(again.lines.filter((l) => l.startsWith("triggered run"))).toEqual([]);
  expect((await childRuns("dup_parent", "dup-1")).map((r) => [r.run_id, r.parent_try_number])).toEqual([[first.runId, 1]]);
  const next = await poke(2);
  expect(next.runId).not.toBe(first.runId);
  expect((await childRuns("dup_parent", "dup-1")).map((r) => r.parent_try_number)).toEqual([1, 2]);
  for (const r of await childRuns("dup_parent", "dup-1")) await h.api.markRun("stuck_child", r.run_id, "failed");
});
