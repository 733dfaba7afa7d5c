import { silentLogger } from "@svc/logger";
import { taskJobId } from "@svc/queue";
import { waitFor } from "@svc/testing";
import { nullNotifier } from "../src";
import { startQueuedRuns } from "../src/runtime/start-runs";
import { createHarness, type Harness } from "./harness";

// A worker runs an instant downstream (noop) itself when its upstream's round queues it, and a
// claimed one (sleep) next in its upstream's slot, but not while it stops: then the downstream
// tries get their jobs and another worker runs them.
let h: Harness;

beforeAll(async () => {
  h = await createHarness("handoffstop");
  h.writeDag(
    "slow_then_noop.yaml",
    `dag_id: slow_then_noop
tasks:
  - {task_id: slow, operator: sleep, args: {seconds: 1}}
  - {task_id: after, operator: noop, depends_on: [slow]}
  - {task_id: claimed, operator: sleep, args: {seconds: 0}, depends_on: [slow]}
`,
  );
  await h.sync();
  await h.api.setPaused("slow_then_noop", false);
}, 60000);

afterAll(() => h.close());

test("a worker stopping while a try runs sends that try's instant and claimed downstream tries through the queue, and another worker runs them", async () => {
  const first = h.startRuntime({ scheduler: false });
  await h.api.triggerDagRun("slow_then_noop", { runId: "s1" });
  await startQueuedRuns({ db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() }, "slow_then_noop");
  await waitFor(async () => (await h.tis("slow_then_noop", "s1")).slow?.state === "running", { timeoutMs: 20000, what: "slow running" });
  // The stop waits for the running try (its grace is longer than the sleep), which lands its success.
  await first.stop();
  let tis = await h.tis("slow_then_noop", "s1");
  expect([tis.slow!.state, tis.after!.state, tis.after!.try_number, tis.claimed!.state]).toEqual(["success", "queued", 1, "queued"]);
  const added = await h.addedTaskJobs();
  for (const taskId of ["after", "claimed"]) expect(added).toContain(taskJobId({ dagId: "slow_then_noop", runId: "s1", taskId, tryNumber: 1 }));

  h.startRuntime({ scheduler: false });
  expect((await h.waitRun("slow_then_noop", "s1")).state).toBe("success");
  tis = await h.tis("slow_then_noop", "s1");
  expect(tis.after!.worker_id).not.toBe(tis.slow!.worker_id);
  expect(tis.claimed!.worker_id).not.toBe(tis.slow!.worker_id);
}, 60000);
