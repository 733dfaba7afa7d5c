import { sql } from "kysely";
import { silentLogger } from "@svc/logger";
import { taskJobId } from "@svc/queue";
import { waitFor } from "@svc/testing";
import { nullNotifier } from "../src";
import { startQueuedRuns } from "../src/runtime/start-runs";
import { createHarness, type Harness } from "./harness";

// A slot waits for its try's commit only while it lands at once: a commit that retries (the
// database refusing it) goes on without the slot, which takes its next job meanwhile and keeps no
// downstream; the downstream gets its job once the commit lands.
let h: Harness;

beforeAll(async () => {
  h = await createHarness("slotwait");
  h.writeDag("held.yaml", "dag_id: held\ntasks:\n  - {task_id: a, operator: sleep, args: {seconds: 0}}\n  - {task_id: b, operator: sleep, args: {seconds: 0}, depends_on: [a]}\n");
  h.writeDag("other.yaml", "dag_id: other\ntasks:\n  - {task_id: c, operator: sleep, args: {seconds: 0}}\n");
  await h.sync();
  for (const d of ["held", "other"]) await h.api.setPaused(d, false);
  // While `refuse_a` holds a row, the commit of held's task a fails (and is retried by its worker).
  await sql`create table refuse_a (x int)`.execute(h.db);
  await sql`insert into refuse_a values (1)`.execute(h.db);
  await sql`create function refuse_a_commit() returns trigger language plpgsql as $$
    begin
      if new.dag_id = 'held' and new.task_id = 'a' and new.state = 'success' and exists (select 1 from refuse_a) then
        raise exception 'commit refused by the test';
      end if;
      return new;
    end $$`.execute(h.db);
  await sql`create trigger refuse_a before update on task_instance for each row execute function refuse_a_commit()`.execute(h.db);
}, 60000);

afterAll(() => h.close());

test("a slot whose commit is being retried takes its next job, and the downstream gets its job once the commit lands", async () => {
  h.startRuntime({ workerConcurrency: 1 });
  const deps = { db: h.db, queues: h.queues, notifier: nullNotifier, logger: silentLogger() };
  await h.api.triggerDagRun("held", { runId: "h1" });
  await startQueuedRuns(deps, "held");
  await waitFor(async () => ((await h.tis("held", "h1")).a?.state === "running" ? true : undefined), { timeoutMs: 20000, what: "a running" });

  // The one slot runs another run's task while a's commit is refused.
  await h.api.triggerDagRun("other", { runId: "o1" });
  await startQueuedRuns(deps, "other");
  expect((await h.waitRun("other", "o1", ["success", "failed"], 15000)).state).toBe("success");
  expect((await h.tis("held", "h1")).a!.state).toBe("running");

  await sql`delete from refuse_a`.execute(h.db);
  expect((await h.waitRun("held", "h1", ["success", "failed"], 30000)).state).toBe("success");
  const tis = await h.tis("held", "h1");
  expect([tis.a!.try_number, tis.b!.try_number]).toEqual([1, 1]);
  expect(new Date(tis.b!.start_date!).getTime()).toBeGreaterThanOrEqual(new Date(tis.a!.end_date!).getTime());
  expect(await h.addedTaskJobs()).toContain(taskJobId({ dagId: "held", runId: "h1", taskId: "b", tryNumber: 1 }));
}, 90000);
