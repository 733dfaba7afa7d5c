import type { ChildProcess } from "node:child_process";
import { startTcpHold, waitFor, type TcpHold } from "@svc/testing";
import { killHard, spawnHarnessWorker } from "./child";
import { createHarness, type Harness } from "./harness";

// A worker whose Redis goes silent for longer than its job lock while its try runs (its Postgres
// still answers, so it keeps heartbeating). BullMQ's stall check gives the job back and another
// worker takes it: the claim in Postgres must make that delivery a no-op, the first worker's try
// must finish and stand (its job's completion in BullMQ fails: the lock is gone), and the run must
// go on to its downstream task, each task once.
let h: Harness;
let hold: TcpHold;
const children: ChildProcess[] = [];
const LOCK_MS = "2000";

beforeAll(async () => {
  h = await createHarness("rcut");
  h.writeDag(
    "long.yaml",
    "dag_id: long\ntasks:\n  - {task_id: work, operator: sleep, args: {seconds: 8}}\n  - {task_id: after, operator: sleep, args: {seconds: 0.2}, depends_on: [work]}\n",
  );
  await h.sync();
  await h.api.setPaused("long", false);
  hold = await startTcpHold(Number(new URL(h.config.redisUrl).port || 6379));
}, 60000);

afterAll(async () => {
  for (const c of children) await killHard(c);
  await hold?.close();
  await h?.close();
});

const worker = (redisUrl: string) => spawnHarnessWorker(h, children, { lockMs: LOCK_MS, redisUrl });

/**
 * Jobs BullMQ's stall check gave back, from the queue's event stream: the job itself is removed
 * once its second delivery completes (a no-op, in milliseconds), so its own counter is gone by then.
 */
const stalledDeliveries = async (): Promise<number> => (await h.taskJobEvents("stalled")).length;

test("a worker cut off from Redis past its job lock while its try runs: the job given back to another worker is a no-op, the try finishes once and the run goes on", async () => {
  const viaHold = new URL(h.config.redisUrl);
  viaHold.port = String(hold.port);
  await worker(viaHold.toString());
  h.startRuntime({ worker: false });
  const run = await h.api.triggerDagRun("long", { runId: "cut" });
  await waitFor(async () => (await h.tis("long", "cut")).work?.state === "running", { timeoutMs: 30000, what: "work running on the first worker" });
  const first = (await h.tis("long", "cut")).work!;

  hold.hold();
  await worker(h.config.redisUrl);
  // The first worker cannot renew its lock: a stall check gives the job back and the second worker takes it.
  await waitFor(async () => (await stalledDeliveries()) >= 1, { timeoutMs: 20000, what: "the job given back by BullMQ's stall check" });
  expect((await h.tis("long", "cut")).work).toMatchObject({ state: "running", try_number: 1, worker_id: first.worker_id });
  hold.release();

  const done = await h.waitRun("long", run.dag_run_id, ["success", "failed"], 40000);
  expect(done.state).toBe("success");
  const tis = await h.tis("long", run.dag_run_id);
  expect(tis.work).toMatchObject({ state: "success", try_number: 1, zombie_count: 0, worker_id: first.worker_id });
  expect(tis.after).toMatchObject({ state: "success", try_number: 1 });
  const succeeded = await h.db
    .selectFrom("task_log")
    .select(["task_id", "try_number"])
    .where("run_id", "=", run.dag_run_id)
    .where("line", "=", "task succeeded")
    .orderBy("task_id")
    .execute();
  expect(succeeded).toEqual([
    { task_id: "after", try_number: 1 },
    { task_id: "work", try_number: 1 },
  ]);
}, 120000);
