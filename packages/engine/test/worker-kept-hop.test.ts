import { silentLogger } from "@svc/logger";
import { taskJobId } from "@svc/queue";
import { nullNotifier } from "../src";
import { startQueuedRuns } from "../src/runtime/start-runs";
import { startWorker, type EngineWorker } from "../src/runtime/worker";
import { tryBatcher, type TryBatcher } from "../src/runtime/task-claim";
import { createHarness, type Harness } from "./harness";

// A slot's claimed downstream is claimed by the round that lands its upstream's success (migration
// 018): no claim of its own. A reply lost on the way puts it back to queued; a reply that comes
// after the slot went on has the worker run it beside its slots.
let h: Harness;
const TASKS = ["t0", "t1", "t2", "t3", "t4"];
let workers: EngineWorker[] = [];

beforeAll(async () => {
  h = await createHarness("kepthop");
  const chain = (dagId: string) =>
    `dag_id: ${dagId}\ntasks:\n` + TASKS.map((t, i) => `  - {task_id: ${t}, operator: sleep, args: {seconds: 0}${i ? `, depends_on: [t${i - 1}]` : ""}}\n`).join("");
  for (const d of ["kept", "lost", "late"]) h.writeDag(`${d}.yaml`, chain(d));
  await h.sync();
  for (const d of ["kept", "lost", "late"]) await h.api.setPaused(d, false);
}, 60000);

afterEach(async () => {
  for (const w of workers) await w.close(1000);
  workers = [];
});
afterAll(() => h.close());

/** A worker whose tries go through `tries`, with one slot. */
function worker(id: string, tries: TryBatcher): void {
  workers.push(startWorker(h.runtimeDeps(id, { config: { ...h.config, worker: { ...h.config.worker, concurrency: 1 } }, tries })));
}

async function runChain(dagId: string): Promise<void> {
  await h.api.triggerDagRun(dagId, { runId: "r1" });
  await startQueuedRuns({ db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() }, dagId);
  expect((await h.waitRun(dagId, "r1", ["success", "failed"], 30000)).state).toBe("success");
  const tis = await h.tis(dagId, "r1");
  expect(TASKS.map((t) => `${t}:${tis[t]!.state}@${tis[t]!.try_number}`)).toEqual(TASKS.map((t) => `${t}:success@1`));
}

const jobsOf = async (dagId: string) => {
  const added = await h.addedTaskJobs();
  return TASKS.filter((taskId) => added.includes(taskJobId({ dagId, runId: "r1", taskId, tryNumber: 1 })));
};
const startedLines = async (dagId: string, taskId: string) => (await h.logs(dagId, "r1", taskId)).filter((l) => /^try 1 of \d+ started on /.test(l));

test("a chain of claimed tries takes one claim: each downstream is claimed by the round that lands its upstream, for the same worker", async () => {
  const real = tryBatcher(h.db);
  const claimed: string[] = [];
  worker("kept-w", { ...real, claim: (job, w) => (claimed.push(job.taskId), real.claim(job, w)) });
  await runChain("kept");
  expect(claimed).toEqual(["t0"]);
  expect(await jobsOf("kept")).toEqual(["t0"]);
  const tis = await h.tis("kept", "r1");
  for (const t of TASKS.slice(1)) {
    expect(tis[t]!.worker_id).toBe("kept-w");
    // Queued and started by one statement.
    expect(new Date(tis[t]!.start_date!).getTime()).toBe(new Date(tis[t]!.queued_at!).getTime());
  }
}, 60000);

test("a kept downstream claimed by a reply that was lost goes back to queued and runs once, through its job", async () => {
  const real = tryBatcher(h.db);
  let lost = 0;
  const commit: TryBatcher["commit"] = async (req) => {
    if (!req.keep || lost++) return real.commit(req);
    await real.commit(req); // landed, with t1 claimed for this worker, but the reply never comes
    throw new Error("Connection terminated unexpectedly");
  };
  worker("lost-w", { ...real, commit });
  await runChain("lost");
  expect(lost).toBeGreaterThan(1);
  // t0's reply was lost: its retry found it committed, and t1 was put back and sent as a job.
  expect(await jobsOf("lost")).toEqual(["t0", "t1"]);
  expect(await startedLines("lost", "t1")).toHaveLength(1);
}, 60000);

test("a kept downstream whose claim lands after its slot went on runs beside the slots, once, without a job", async () => {
  const real = tryBatcher(h.db);
  let late = 0;
  const commit: TryBatcher["commit"] = async (req) => {
    const written = await real.commit(req);
    // The first kept claim comes back after the slot's wait is over.
    if (req.keep && !late++) await new Promise((r) => setTimeout(r, 1600));
    return written;
  };
  const claimed: string[] = [];
  worker("late-w", { ...real, commit, claim: (job, w) => (claimed.push(job.taskId), real.claim(job, w)) });
  await runChain("late");
  expect(late).toBeGreaterThan(1);
  // t1 had neither a claim of its own nor a job; run outside a slot, it kept nothing, so t2 went
  // through the queue, and its slot kept t3 and t4.
  expect(claimed).toEqual(["t0", "t2"]);
  expect(await jobsOf("late")).toEqual(["t0", "t2"]);
  expect(await startedLines("late", "t1")).toHaveLength(1);
}, 60000);
