import { sql } from "kysely";
import { silentLogger } from "@svc/logger";
import { taskJobId } from "@svc/queue";
import { nullNotifier } from "../src";
import { startQueuedRuns } from "../src/runtime/start-runs";
import { createHarness, type Harness } from "./harness";

// The hop from a task to its downstream is the worker's: it evaluates the run after the outcome
// lands and enqueues the next try itself. Here no scheduler runs at all after the run's start.
let h: Harness;

beforeAll(async () => {
  h = await createHarness("workerhop");
  h.writeDag(
    "hop.yaml",
    `
dag_id: hop
tasks:
  - {task_id: a, operator: noop}
  - {task_id: b, operator: sleep, args: {seconds: 0.05}, depends_on: [a]}
  - {task_id: c, operator: noop, depends_on: [b]}
  - {task_id: d, operator: noop, depends_on: [b]}
  - {task_id: e, operator: noop, depends_on: [c, d]}
`,
  );
  const chain = (id: string, n: number, op: string) =>
    `dag_id: ${id}\ntasks:\n` + Array.from({ length: n }, (_, i) => `  - {task_id: t${i}, operator: ${op}${i ? `, depends_on: [t${i - 1}]` : ""}}\n`).join("");
  h.writeDag("chain2.yaml", chain("chain2", 2, "noop"));
  h.writeDag("chain8.yaml", chain("chain8", 8, "noop"));
  h.writeDag("claimed2.yaml", chain("claimed2", 2, "sleep, args: {seconds: 0.01}"));
  h.writeDag("claimed8.yaml", chain("claimed8", 8, "sleep, args: {seconds: 0.01}"));
  h.writeDag(
    "mixed.yaml",
    `dag_id: mixed
tasks:
  - {task_id: t0, operator: noop}
  - {task_id: t1, operator: noop, depends_on: [t0]}
  - {task_id: t2, operator: sleep, args: {seconds: 0.01}, depends_on: [t1]}
  - {task_id: t3, operator: noop, depends_on: [t2]}
  - {task_id: t4, operator: noop, depends_on: [t3]}
  - {task_id: t5, operator: noop, depends_on: [t3, t4]}
`,
  );
  await h.sync();
  for (const d of ["hop", "chain2", "chain8", "claimed2", "claimed8", "mixed"]) await h.api.setPaused(d, false);
  // Every write of a run's row, counted: a decision (svc_apply_decision) writes it, a hop decided
  // in the round that lands its upstream's success does not.
  await sql`create table run_writes (run_id text not null)`.execute(h.db);
  await sql`create function count_run_write() returns trigger language plpgsql as $$ begin insert into run_writes values (new.run_id); return new; end $$`.execute(h.db);
  await sql`create trigger count_run_writes after update on dag_run for each row execute function count_run_write()`.execute(h.db);
}, 60000);

afterAll(() => h.close());

test("a run goes from its first task to its end with workers only: each downstream is queued in Postgres before it runs", async () => {
  await h.api.triggerDagRun("hop", { runId: "r1" });
  const before = await h.queues.scheduler.getJobCounts("waiting", "delayed", "completed", "failed");
  h.startRuntime({ scheduler: false });
  // The run's start (the scheduler's part): running, its first task queued and enqueued.
  await startQueuedRuns({ db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() }, "hop");
  const run = await h.waitRun("hop", "r1");
  expect(run.state).toBe("success");
  const tis = await h.tis("hop", "r1");
  expect(Object.values(tis).map((t) => [t.task_id, t.state, t.try_number])).toEqual(
    expect.arrayContaining([
      ["a", "success", 1],
      ["b", "success", 1],
      ["c", "success", 1],
      ["d", "success", 1],
      ["e", "success", 1],
    ]),
  );
  // Each try started after every upstream had ended (its state was in Postgres first).
  const end = (t: string) => new Date(tis[t]!.end_date!).getTime();
  const start = (t: string) => new Date(tis[t]!.start_date!).getTime();
  expect(start("b")).toBeGreaterThanOrEqual(end("a"));
  expect(start("c")).toBeGreaterThanOrEqual(end("b"));
  expect(start("e")).toBeGreaterThanOrEqual(Math.max(end("c"), end("d")));
  // Nothing went through the scheduler's queue: no event was sent for the hops or the run's end.
  expect(await h.queues.scheduler.getJobCounts("waiting", "delayed", "completed", "failed")).toEqual(before);
}, 60000);

test.each([
  ["instant tries (noop, finished without a claim)", "chain"],
  ["claimed tries (sleep, committed)", "claimed"],
])(
  "a chain's hops are queued by the rounds that land each upstream's success, with no decision: 8 tasks write the run's row as often as 2 (%s)",
  async (_, prefix) => {
    const deps = { db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() };
    const writes = async (runId: string) => Number((await sql<{ n: string }>`select count(*) as n from run_writes where run_id = ${runId}`.execute(h.db)).rows[0]!.n);
    const counts: number[] = [];
    for (const n of [2, 8]) {
      const dagId = `${prefix}${n}`;
      const runId = `${dagId}-r`;
      await h.api.triggerDagRun(dagId, { runId });
      await startQueuedRuns(deps, dagId);
      const run = await h.waitRun(dagId, runId);
      expect(run.state).toBe("success");
      const tis = Object.values(await h.tis(dagId, runId));
      expect(tis.map((t) => `${t.state}@${t.try_number}`)).toEqual(Array(n).fill("success@1"));
      // Each task started after its upstream had ended.
      const byId = new Map(tis.map((t) => [t.task_id, t]));
      for (let i = 1; i < n; i++) expect(new Date(byId.get(`t${i}`)!.start_date!).getTime()).toBeGreaterThanOrEqual(new Date(byId.get(`t${i - 1}`)!.end_date!).getTime());
      counts.push(await writes(runId));
    }
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBe(counts[0]);
  },
  60000,
);

test("an instant downstream (noop) runs in the worker whose round or evaluation queued it, without a job; a downstream that runs an operator gets its job", async () => {
  const deps = { db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() };
  await h.api.triggerDagRun("mixed", { runId: "m1" });
  await startQueuedRuns(deps, "mixed");
  expect((await h.waitRun("mixed", "m1")).state).toBe("success");
  const tis = await h.tis("mixed", "m1");
  const order = ["t0", "t1", "t2", "t3", "t4", "t5"];
  expect(order.map((t) => `${t}:${tis[t]!.state}@${tis[t]!.try_number}`)).toEqual(order.map((t) => `${t}:success@1`));
  for (let i = 1; i < order.length; i++) expect(new Date(tis[order[i]!]!.start_date!).getTime()).toBeGreaterThanOrEqual(new Date(tis[order[i - 1]!]!.end_date!).getTime());
  // The jobs the tasks queue was sent for this run, from its event stream: the first task's (the
  // run's start) and the sleep's. The noop tasks after an upstream ran without one, whether their
  // upstream's round queued them (t1, t3, t4) or the worker's evaluation did (t5, the join).
  const added = await h.addedTaskJobs();
  const jobOf = (taskId: string) => taskJobId({ dagId: "mixed", runId: "m1", taskId, tryNumber: 1 });
  expect(order.filter((t) => added.includes(jobOf(t)))).toEqual(["t0", "t2"]);
}, 60000);
