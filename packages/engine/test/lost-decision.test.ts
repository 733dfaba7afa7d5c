import { sql } from "kysely";
import { silentLogger } from "@svc/logger";
import { taskJobId } from "@svc/queue";
import { nullNotifier } from "../src";
import { evaluateRun } from "../src/runtime/evaluate-run";
import { startQueuedRuns } from "../src/runtime/start-runs";
import { createHarness, type Harness } from "./harness";

// A decision commits without waiting for the disk (run-read.ts: applyDecision), so a database crash
// can lose it after its jobs were added. Here the crash is played by putting the rows back as they
// were before the decision; the run must still end, each try running once.
let h: Harness;

beforeAll(async () => {
  h = await createHarness("lostdecision");
  h.writeDag(
    "lost.yaml",
    `
dag_id: lost
tasks:
  - {task_id: a, operator: noop}
  - {task_id: b, operator: sleep, args: {seconds: 0.05}, depends_on: [a]}
  - {task_id: c, operator: noop, depends_on: [b]}
`,
  );
  await h.sync();
  await h.api.setPaused("lost", false);
}, 60000);

afterAll(() => h.close());

const deps = () => ({ db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() });

test("a decision lost after its job was added (a database crash) is made again by reconciliation, and the try it queued runs once, at the same try number", async () => {
  await h.api.triggerDagRun("lost", { runId: "r1" });
  await startQueuedRuns(deps(), "lost");
  // a's success, committed as a try's outcome is (synchronously): it survives the crash. (Its job, left in
  // Redis, finds it no longer queued and is dropped.)
  const now = new Date();
  await sql`update task_instance set state = 'success', start_date = ${now}, end_date = ${now} where dag_id = 'lost' and run_id = 'r1' and task_id = 'a'`.execute(h.db);
  const before = await h.db.selectFrom("dag_run").select("evaluated_version").where("run_id", "=", "r1").executeTakeFirstOrThrow();

  // The decision: b queued at try 1, and its job added.
  expect(await evaluateRun(deps(), "lost", "r1")).toMatchObject({ evaluated: true, queued: 1 });
  const job = { dagId: "lost", runId: "r1", taskId: "b", tryNumber: 1 };
  expect(await h.queues.tasks.getJob(taskJobId(job))).toBeDefined();

  // The crash loses the decision's commit: b and the run as they were before it; the job stays.
  await sql`update task_instance set state = null, try_number = 0, queued_at = null where dag_id = 'lost' and run_id = 'r1' and task_id = 'b'`.execute(h.db);
  await sql`update dag_run set evaluated_version = ${before.evaluated_version} where dag_id = 'lost' and run_id = 'r1'`.execute(h.db);

  h.startRuntime();
  const run = await h.waitRun("lost", "r1");
  expect(run.state).toBe("success");
  const tis = await h.tis("lost", "r1");
  expect([tis.a, tis.b, tis.c].map((t) => [t!.task_id, t!.state, t!.try_number])).toEqual([
    ["a", "success", 1],
    ["b", "success", 1],
    ["c", "success", 1],
  ]);
  // b ran once: one start line and one success line for its only try.
  const lines = await h.logs("lost", "r1", "b");
  expect(lines.filter((l) => /task succeeded/.test(l))).toHaveLength(1);
}, 60000);
