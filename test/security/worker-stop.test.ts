import { waitFor } from "@svc/testing";
import { startOwnFaultStack, type FaultStack, type OwnFaultStack } from "./fault-stack";

const GRACE_MS = 1000;
// No retries: a stop that used one would fail the task.
// The long task outlasts a second worker's start (it loads the cloud SDKs; seconds on a loaded machine), so the stop finds it running.
const DAGS = {
  long_task: "dag_id: long_task\ntasks:\n  - {task_id: work, operator: sleep, args: {seconds: 30, print_every: 0.5}}\n",
  hang_stop: "dag_id: hang_stop\ntasks:\n  - {task_id: work, operator: sleep, args: {seconds: 60}}\n",
};

let own: OwnFaultStack;
let stack: FaultStack;
beforeAll(async () => {
  own = await startOwnFaultStack({
    label: "workerstop",
    dags: DAGS,
    env: { SVC_STOP_GRACE_MS: String(GRACE_MS), SVC_ZOMBIE_AFTER_MS: "60000" },
  });
  stack = own.stack;
  await stack.start("scheduler", "scheduler");
}, 180_000);
afterAll(async () => {
  await own?.close();
});

const trigger = async (dagId: string) => (await stack.api.triggerDagRun(dagId, {})).dag_run_id;
const ti = (dagId: string, runId: string) =>
  stack.db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).where("task_id", "=", "work").executeTakeFirst();
const logOf = async (dagId: string, runId: string, tryNumber: number) =>
  (await stack.db.selectFrom("task_log").select("line").where("dag_id", "=", dagId).where("run_id", "=", runId).where("try_number", "=", tryNumber).orderBy("id").execute()).map(
    (r) => r.line,
  );

test("a worker stopped (SIGTERM) with a long task running hands the try back: another worker finishes the run and the task's retries are untouched", async () => {
  const a = await stack.start("worker-a", "worker");
  const runId = await trigger("long_task");
  const running = await waitFor(
    async () => {
      const t = await ti("long_task", runId);
      return t?.state === "running" ? t : undefined;
    },
    { timeoutMs: 30_000, what: "task running on worker a" },
  );
  expect(running.worker_id).toContain(`-${a.pid()}-`);
  expect(running).toMatchObject({ try_number: 1, max_tries: 0 });

  await stack.start("worker-b", "worker");
  const exitS = await stack.terminate("worker-a");
  expect(exitS).toBeLessThan(GRACE_MS / 1000 + 5);
  expect(stack.output("worker-a")).not.toMatch(/did not finish within the stop grace/);

  const run = await waitFor(
    async () => {
      const r = await stack.db.selectFrom("dag_run").select("state").where("dag_id", "=", "long_task").where("run_id", "=", runId).executeTakeFirst();
      return r?.state === "success" || r?.state === "failed" ? r : undefined;
    },
    { timeoutMs: 60_000, what: "run finished" },
  );
  expect(run.state).toBe("success");
  const done = (await ti("long_task", runId))!;
  // One extra try granted for the hand-back: tries left (max_tries + 1 - try_number) as before.
  expect(done).toMatchObject({ state: "success", try_number: 2, max_tries: 1, zombie_count: 0 });
  expect(done.worker_id).not.toBe(running.worker_id);
  const first = await logOf("long_task", runId, 1);
  expect(first.at(-1)).toMatch(new RegExp(`^handed back by worker ${running.worker_id} on shutdown`));
  expect(first.some((l) => /^task failed/.test(l))).toBe(false);
  expect(await logOf("long_task", runId, 2)).toEqual(expect.arrayContaining(["task succeeded"]));
  await stack.terminate("worker-b");
}, 120_000);

test("a worker whose stop hangs (database gone while it hands a try back) is made to exit within the grace + 5 s, saying so", async () => {
  const c = await stack.start("worker-c", "worker");
  const runId = await trigger("hang_stop");
  await waitFor(async () => ((await ti("hang_stop", runId))?.state === "running" ? true : undefined), { timeoutMs: 30_000, what: "task running on worker c" });
  await own.pg.stop();
  try {
    const exitS = await stack.terminate("worker-c");
    expect(exitS).toBeLessThan(GRACE_MS / 1000 + 5 + 1);
    expect(stack.output("worker-c")).toMatch(/shutdown did not finish within the stop grace; exiting now/);
    expect(c.pid()).toBeUndefined();
  } finally {
    await own.pg.start();
  }
}, 120_000);
