import type { ChildProcess } from "node:child_process";
import { startTcpHold, waitFor, type TcpHold } from "@svc/testing";
import { killHard, spawnHarnessWorker } from "./child";
import { createHarness, type Harness } from "./harness";

// A worker killed after it took a task's job and before it claimed the try (its database stopped
// answering in between): the try is still queued in Postgres while the job is held under the dead
// worker's lock, where reconciliation cannot add it again. The job comes back when that lock lapses
// (SVC_WORKER_LOCK_MS, checked every half of it), and another worker runs the try once, as try 1.
let h: Harness;
let hold: TcpHold;
const children: ChildProcess[] = [];
const LOCK_MS = "2000";

beforeAll(async () => {
  h = await createHarness("taken");
  h.writeDag("one.yaml", "dag_id: one\ntasks:\n  - {task_id: only, operator: sleep, args: {seconds: 0.2}}\n");
  await h.sync();
  await h.api.setPaused("one", false);
  hold = await startTcpHold(Number(new URL(h.tdb.url).port || 5432));
}, 60000);

afterAll(async () => {
  for (const c of children) await killHard(c);
  await hold?.close();
  await h?.close();
});

const worker = (databaseUrl: string) => spawnHarnessWorker(h, children, { lockMs: LOCK_MS, databaseUrl });

test("a worker killed between taking a job and claiming its try: the job comes back after its lock lapses and another worker runs the try once, as try 1", async () => {
  const held = new URL(h.tdb.url);
  held.port = String(hold.port);
  const first = await worker(held.toString());
  h.startRuntime({ worker: false });
  hold.hold();
  const run = await h.api.triggerDagRun("one", { runId: "taken" });
  await waitFor(async () => (await h.queues.tasks.getActiveCount()) === 1, { timeoutMs: 20000, what: "the job taken by the worker whose database is held" });
  expect((await h.tis("one", "taken")).only?.state).toBe("queued");
  await killHard(first);

  await worker(h.tdb.url);
  // BullMQ's own defaults (a 30 s lock, a stall check every 30 s) would keep the job away for up to a minute.
  const done = await h.waitRun("one", run.dag_run_id, ["success", "failed"], 20000);
  expect(done.state).toBe("success");
  const only = (await h.tis("one", run.dag_run_id)).only!;
  expect(only.try_number).toBe(1);
  expect(only.zombie_count).toBe(0);
  const succeeded = await h.db.selectFrom("task_log").select("try_number").where("run_id", "=", run.dag_run_id).where("line", "=", "task succeeded").execute();
  expect(succeeded.map((r) => r.try_number)).toEqual([1]);
}, 90000);
