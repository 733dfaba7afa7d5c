import { waitFor } from "@svc/testing";
import { syncCronSchedulers } from "../src/runtime/cron";
import { silentLogger } from "@svc/logger";
import { createHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await createHarness("cron");
  h.writeDag("every-minute.yaml", "dag_id: every_minute\nschedule: '* * * * *'\ntasks:\n  - {task_id: t, operator: noop}\n");
  h.writeDag("hourly.yaml", "dag_id: hourly\nschedule: '@hourly'\ntasks:\n  - {task_id: t, operator: noop}\n");
  await h.sync();
});

afterAll(async () => h?.close());

const schedulers = async () => (await h.queues.scheduler.getJobSchedulers(0, -1)).map((s) => [s.key, s.pattern]).sort();

test("cron schedulers exist only for unpaused scheduled DAGs, with presets expanded", async () => {
  await syncCronSchedulers(h.db, h.queues.scheduler, silentLogger());
  expect(await schedulers()).toEqual([]); // both DAGs start paused
  await h.api.setPaused("hourly", false);
  await syncCronSchedulers(h.db, h.queues.scheduler, silentLogger());
  expect(await schedulers()).toEqual([["cron|hourly", "0 * * * *"]]);
  await h.api.setPaused("hourly", true);
  await syncCronSchedulers(h.db, h.queues.scheduler, silentLogger());
  expect(await schedulers()).toEqual([]);
});

test("an unpaused '* * * * *' DAG gets a scheduled run from the cron scheduler and it succeeds", async () => {
  h.startRuntime();
  await h.api.setPaused("every_minute", false);
  const run = await waitFor(async () => h.db.selectFrom("dag_run").selectAll().where("dag_id", "=", "every_minute").where("run_type", "=", "scheduled").executeTakeFirst(), {
    timeoutMs: 75000,
    intervalMs: 250,
    what: "a scheduled run",
  });
  expect(run.run_id).toMatch(/^scheduled__\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
  expect(new Date(run.logical_date).getUTCSeconds()).toBe(0);
  expect((await h.waitRun("every_minute", run.run_id)).state).toBe("success");
}, 90000);
