import { waitFor } from "@svc/testing";
import { createHarness, type Harness } from "./harness";

// A DAG event lets queued runs start; only an event saying the DAG's schedule or pause state may
// have changed (the DAG processor, an unpause) also syncs the DAG's cron scheduler. Reconciliation,
// which syncs them all, is slowed down here so that it cannot stand in for the events.
let h: Harness;

beforeAll(async () => {
  h = await createHarness("dagevents");
  h.writeDag("hourly.yaml", "dag_id: hourly\nschedule: '@hourly'\ntasks:\n  - {task_id: t, operator: noop}\n");
  await h.sync();
});

afterAll(async () => h?.close());

const cron = async () => (await h.queues.scheduler.getJobSchedulers(0, -1)).map((s) => s.key).filter((k) => k === "cron|hourly");

test("an unpause syncs the DAG's cron scheduler; a trigger starts its run without reading the schedulers", async () => {
  h.startRuntime({ reconcileIntervalMs: 600_000 });
  await h.scheduler().ready();
  await h.api.setPaused("hourly", false);
  await waitFor(async () => ((await cron()).length ? true : undefined), { timeoutMs: 10000, what: "the cron scheduler after the unpause" });

  // Drift only a full sync would mend: a trigger's event starts the run and leaves it alone.
  await h.queues.scheduler.removeJobScheduler("cron|hourly");
  const run = await h.api.triggerDagRun("hourly", { runId: "by-hand" });
  expect((await h.waitRun("hourly", run.dag_run_id)).state).toBe("success");
  expect(await cron()).toEqual([]);

  // An unpause (the DAG was unpaused already) says the schedule may have changed: synced again.
  await h.api.setPaused("hourly", false);
  await waitFor(async () => ((await cron()).length ? true : undefined), { timeoutMs: 10000, what: "the cron scheduler after the second unpause" });
}, 60000);
