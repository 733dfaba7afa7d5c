import { silentLogger } from "@svc/logger";
import { nullNotifier, startQueuedRuns } from "../src";
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
  await h.sync();
  await h.api.setPaused("hop", false);
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
