import { waitFor } from "@svc/testing";
import { executeTry } from "../src/runtime/execute-try";
import { tryBatcher } from "../src/runtime/task-claim";
import { type RuntimeDeps } from "../src/runtime/deps";
import { createHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await createHarness("commitretry");
  h.writeDag("one.yaml", "dag_id: one\ntasks:\n  - {task_id: t, operator: sleep, args: {seconds: 0}}\n");
  await h.sync();
  await h.api.setPaused("one", false);
  h.startRuntime({ worker: false });
});
afterAll(async () => {
  await h.close();
});

/** The deps of a worker `id` whose tries go through `tries` (the real batcher by default). */
const workerDeps = (id: string, tries = tryBatcher(h.db)): RuntimeDeps => h.runtimeDeps(id, { tries });

test("a try whose outcome commit fails while the database is unreachable retries the commit and lands it once", async () => {
  const run = await h.api.triggerDagRun("one", { runId: "r1" });
  await waitFor(async () => (await h.tis("one", run.dag_run_id)).t?.state === "queued", { what: "task queued" });

  const real = tryBatcher(h.db);
  let failures = 0;
  const deps = workerDeps("worker-test-1", {
    ...real,
    commit: async (req) => (failures++ < 2 ? Promise.reject(new Error("Connection terminated unexpectedly")) : real.commit(req)),
  });
  expect(await executeTry(deps, { dagId: "one", runId: run.dag_run_id, taskId: "t", tryNumber: 1 })).toBe("success");
  expect(failures).toBe(3); // two refused, the third landed
  expect((await h.tis("one", run.dag_run_id)).t).toMatchObject({ state: "success", try_number: 1 });
  expect(await h.logs("one", run.dag_run_id, "t", 1)).toEqual(expect.arrayContaining([expect.stringMatching(/task succeeded/)]));
  expect((await h.waitRun("one", run.dag_run_id)).state).toBe("success");
});

test("stopping a worker mid-run lands every try it finished: none is left running", async () => {
  h.writeDag("wide.yaml", `dag_id: wide\ntasks:\n${Array.from({ length: 60 }, (_, i) => `  - {task_id: t${i}, operator: sleep, args: {seconds: 0}}`).join("\n")}\n`);
  await h.sync();
  await h.api.setPaused("wide", false);
  const worker = h.startRuntime({ scheduler: false });
  const run = await h.api.triggerDagRun("wide", { runId: "w1" });
  await waitFor(async () => Object.values(await h.tis("wide", run.dag_run_id)).some((t) => t.state === "success"), { what: "first success" });
  await worker.stop();
  const states = Object.values(await h.tis("wide", run.dag_run_id)).map((t) => t.state);
  expect(states).not.toContain("running");
  expect(states.filter((s) => s === "success").length).toBeGreaterThan(0);
  expect(new Set(states)).toEqual(new Set(states.filter((s) => s === "success" || s === "queued")));
});

test("an instant try delivered to two workers at once lands once: one success, one dropped, one log line", async () => {
  // The scheduler finishes a run's first no-op itself: this one is queued by its upstream's commit,
  // here a worker's with no hand-off, so it waits for its job.
  h.writeDag("dup.yaml", "dag_id: dup\ntasks:\n  - {task_id: s, operator: sleep, args: {seconds: 0}}\n  - {task_id: t, operator: noop, depends_on: [s]}\n");
  await h.sync();
  await h.api.setPaused("dup", false);
  const run = await h.api.triggerDagRun("dup", { runId: "dup" });
  await waitFor(async () => (await h.tis("dup", run.dag_run_id)).s?.state === "queued", { what: "first task queued" });
  expect(await executeTry(workerDeps("worker-0"), { dagId: "dup", runId: "dup", taskId: "s", tryNumber: 1 })).toBe("success");
  expect((await h.tis("dup", "dup")).t).toMatchObject({ state: "queued", try_number: 1 });
  const { dag_hash } = await h.db.selectFrom("dag_run").select("dag_hash").where("dag_id", "=", "dup").where("run_id", "=", "dup").executeTakeFirstOrThrow();
  const job = { dagId: "dup", runId: "dup", taskId: "t", tryNumber: 1, dagHash: dag_hash };
  const results = await Promise.all([executeTry(workerDeps("worker-a"), job), executeTry(workerDeps("worker-b"), job)]);
  expect(results.sort()).toEqual(["dropped", "success"]);
  expect((await h.tis("dup", "dup")).t).toMatchObject({ state: "success", try_number: 1 });
  const lines = await h.logs("dup", "dup", "t", 1);
  expect(lines.filter((l) => /without a claim .* and succeeded/.test(l))).toHaveLength(1);
  expect(lines).toHaveLength(1);
  expect((await h.waitRun("dup", "dup")).state).toBe("success");
});

test("stopping a worker hands back a try still running after the grace period: queued again at once, no retry used", async () => {
  h.writeDag("long.yaml", "dag_id: long\ntasks:\n  - {task_id: s, operator: sleep, args: {seconds: 60}}\n");
  await h.sync();
  await h.api.setPaused("long", false);
  const rt = h.startRuntime({ scheduler: false });
  const run = await h.api.triggerDagRun("long", { runId: "l1" });
  await waitFor(async () => (await h.tis("long", run.dag_run_id)).s?.state === "running", { what: "sleep running" });
  await rt.worker!.close(200);
  const ti = (await h.tis("long", run.dag_run_id)).s!;
  // No retries configured: a consumed one would have failed the task.
  expect(["up_for_retry", "queued"]).toContain(ti.state);
  expect(ti.max_tries).toBe(1);
  expect(ti.error).toMatch(/handed back by worker .* on shutdown/);
  expect(await h.logs("long", run.dag_run_id, "s", 1)).toEqual(expect.arrayContaining([expect.stringMatching(/handed back by worker .* on shutdown/)]));
});
