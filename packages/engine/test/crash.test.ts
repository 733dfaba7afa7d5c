import type { ChildProcess } from "node:child_process";
import { startRedisServer, waitFor, type OwnRedis } from "@svc/testing";
import { killHard, spawnEngine } from "./child";
import { createHarness, type Harness } from "./harness";

// Crash safety with real processes: kill -9 a worker mid-task, kill the scheduler mid-run, FLUSHALL
// a Redis of our own mid-run. Nothing is lost and no try commits twice.
let h: Harness;
let redis: OwnRedis;
const children: ChildProcess[] = [];
let schedulerProc: ChildProcess;

const env = () => ({ DATABASE_URL: h.tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: h.queues.prefix, SVC_DAGS_DIR: h.dagsDir, SVC_LOG_LEVEL: "silent" });
const spawn = async (role: "scheduler" | "worker") => {
  const c = await spawnEngine(role, env());
  children.push(c);
  return c;
};

beforeAll(async () => {
  redis = await startRedisServer();
  h = await createHarness("crash", { redisUrl: redis.url });
  h.writeDag(
    "long.yaml",
    `
dag_id: long
tasks:
  - {task_id: first, operator: sleep, args: {seconds: 3, print_every: 0.5}}
  - {task_id: second, operator: noop, depends_on: [first]}
`,
  );
  h.writeDag(
    "chain.yaml",
    `
dag_id: chain
tasks:
  - {task_id: t1, operator: sleep, args: {seconds: 0.5}}
  - {task_id: t2, operator: sleep, args: {seconds: 0.5}, depends_on: [t1]}
  - {task_id: t3, operator: sleep, args: {seconds: 0.5}, depends_on: [t2]}
  - {task_id: t4, operator: sleep, args: {seconds: 0.5}, depends_on: [t3]}
  - {task_id: t5, operator: noop, depends_on: [t4]}
`,
  );
  await h.sync();
  await h.api.setPaused("long", false);
  await h.api.setPaused("chain", false);
}, 60000);

afterAll(async () => {
  for (const c of children) await killHard(c);
  await h?.close();
  await redis?.stop();
});

async function expectEachTryCommittedOnce(dagId: string, runId: string) {
  const rows = await h.db
    .selectFrom("task_log")
    .select(["task_id", "try_number"])
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("dag_id", "=", dagId)
    .where("run_id", "=", runId)
    .where("line", "=", "task succeeded")
    .groupBy(["task_id", "try_number"])
    .execute();
  for (const r of rows) expect(Number(r.n)).toBe(1);
  const tasks = new Set(rows.map((r) => r.task_id));
  expect(rows.length).toBe(tasks.size); // exactly one successful try per task
}

test("kill -9 of a worker mid-task: another worker retries the try and the run completes", async () => {
  schedulerProc = await spawn("scheduler");
  const w1 = await spawn("worker");
  const run = await h.api.triggerDagRun("long", { runId: "kill-worker" });
  await waitFor(async () => (await h.tis("long", "kill-worker")).first?.state === "running", { what: "first running" });
  await killHard(w1);
  await spawn("worker");
  const done = await h.waitRun("long", run.dag_run_id, ["success", "failed"], 60000);
  expect(done.state).toBe("success");
  const first = (await h.tis("long", run.dag_run_id)).first!;
  expect(first.try_number).toBe(2);
  expect(first.zombie_count).toBe(1);
  expect((await h.logs("long", run.dag_run_id, "first", 1)).join("\n")).toContain("stopped heartbeating");
  await expectEachTryCommittedOnce("long", run.dag_run_id);
}, 90000);

test("scheduler killed and restarted mid-run: the run completes", async () => {
  const run = await h.api.triggerDagRun("chain", { runId: "kill-scheduler" });
  await waitFor(async () => (await h.tis("chain", "kill-scheduler")).t2?.state === "running", { what: "t2 running", timeoutMs: 30000 });
  await killHard(schedulerProc);
  await new Promise((r) => setTimeout(r, 1000)); // t2 finishes while no scheduler runs
  await spawn("scheduler");
  const done = await h.waitRun("chain", run.dag_run_id, ["success", "failed"], 60000);
  expect(done.state).toBe("success");
  await expectEachTryCommittedOnce("chain", run.dag_run_id);
}, 90000);

test("FLUSHALL on Redis mid-run: reconciliation re-enqueues from Postgres and the run completes", async () => {
  const run = await h.api.triggerDagRun("chain", { runId: "flush-redis" });
  await waitFor(async () => (await h.tis("chain", "flush-redis")).t2?.state === "running", { what: "t2 running", timeoutMs: 30000 });
  await h.queues.connection.flushall();
  const done = await h.waitRun("chain", run.dag_run_id, ["success", "failed"], 60000);
  expect(done.state).toBe("success");
  const tis = await h.tis("chain", run.dag_run_id);
  expect(Object.values(tis).every((t) => t.state === "success")).toBe(true);
  await expectEachTryCommittedOnce("chain", run.dag_run_id);
}, 90000);
