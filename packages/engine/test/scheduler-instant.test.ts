import { jobDagHash, taskJobId } from "@svc/queue";
import { waitFor } from "@svc/testing";
import { schedulerInstantTries } from "../src/runtime/scheduler-instant";
import { createHarness, type Harness } from "./harness";

// The scheduler finishes the no-op tries its evaluations queue, with no job and no worker, as
// Airflow's scheduler does with EmptyOperator tasks; any other try gets its job.
let h: Harness;

beforeAll(async () => {
  h = await createHarness("schedinstant");
  h.writeDag(
    "marks.yaml",
    "dag_id: marks\ntasks:\n  - {task_id: start, operator: noop}\n  - {task_id: a, operator: noop, depends_on: [start]}\n" +
      "  - {task_id: b, operator: noop, depends_on: [start]}\n  - {task_id: end, operator: noop, depends_on: [a, b]}\n",
  );
  h.writeDag("mixed.yaml", "dag_id: mixed\ntasks:\n  - {task_id: n, operator: noop}\n  - {task_id: s, operator: sleep, args: {seconds: 0}, depends_on: [n]}\n");
  await h.sync();
  for (const d of ["marks", "mixed"]) await h.api.setPaused(d, false);
  h.startRuntime({ worker: false });
}, 60000);

afterAll(() => h.close());

const jobsOf = async (dagId: string, runId: string, tasks: string[]) => {
  const added = await h.addedTaskJobs();
  return tasks.filter((taskId) => added.includes(taskJobId({ dagId, runId, taskId, tryNumber: 1 })));
};

test("a run of no-op tasks ends with no worker at all: the scheduler finishes each try, with no job", async () => {
  await h.api.triggerDagRun("marks", { runId: "m1" });
  expect((await h.waitRun("marks", "m1", ["success", "failed"], 20000)).state).toBe("success");
  const tis = await h.tis("marks", "m1");
  for (const t of ["start", "a", "b", "end"]) {
    expect(tis[t]).toMatchObject({ state: "success", try_number: 1 });
    expect(tis[t]!.worker_id).toMatch(/^scheduler-/);
  }
  expect(await jobsOf("marks", "m1", ["start", "a", "b", "end"])).toEqual([]);
}, 30000);

test("a claimed task after a no-op gets its job and waits for a worker: the scheduler never claims", async () => {
  await h.api.triggerDagRun("mixed", { runId: "x1" });
  await waitFor(async () => ((await h.tis("mixed", "x1")).s?.state === "queued" ? true : undefined), { timeoutMs: 20000, what: "s queued" });
  expect((await h.tis("mixed", "x1")).n).toMatchObject({ state: "success", try_number: 1 });
  await waitFor(async () => ((await jobsOf("mixed", "x1", ["s"])).length ? true : undefined), { timeoutMs: 10000, what: "s's job" });
  expect(await jobsOf("mixed", "x1", ["n"])).toEqual([]);
  h.startRuntime({ scheduler: false });
  expect((await h.waitRun("mixed", "x1", ["success", "failed"], 20000)).state).toBe("success");
  expect((await h.tis("mixed", "x1")).s!.worker_id).toMatch(/^worker-/);
}, 40000);

test("a closed scheduler's hand-off finishes nothing more: its instant tries go to the queue", async () => {
  const { dag_hash } = await h.db.selectFrom("dag_run").select("dag_hash").where("dag_id", "=", "marks").where("run_id", "=", "m1").executeTakeFirstOrThrow();
  const job = { dagId: "marks", runId: "m1", taskId: "a", tryNumber: 2, dagHash: jobDagHash(dag_hash) };
  const base = h.runtimeDeps("scheduler-test");
  const instant = schedulerInstantTries(base);
  const deps = instant.attach(base);
  // Not queued at try 2: finished here, it is dropped and changes nothing.
  expect(deps.handOff!([job])).toEqual([]);
  await instant.close();
  expect(deps.handOff!([job])).toEqual([job]);
  expect((await h.tis("marks", "m1")).a).toMatchObject({ state: "success", try_number: 1 });
});
