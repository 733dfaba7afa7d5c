import { sql } from "kysely";
import { silentLogger } from "@svc/logger";
import type { Queues } from "@svc/queue";
import { createTestDb, type TestDb } from "@svc/testing";
import { nullNotifier } from "../notifier";
import { startQueuedRuns } from "./start-runs";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("startburst");
});
afterAll(async () => {
  await tdb.drop();
});

test("runs started together are evaluated several at a time, each once, in start order, and the call waits for all", async () => {
  await sql`insert into dag (dag_id, fileloc, file_token, hash, definition, is_paused, max_active_runs, last_parsed_at)
    values ('burst', '/dags/burst.yaml', 't', 'h', '{"tasks": []}', false, 100, now())`.execute(tdb.db);
  const ids = Array.from({ length: 20 }, (_, i) => `r${String(i).padStart(2, "0")}`);
  for (const [i, runId] of ids.entries()) {
    await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
      values ('burst', ${runId}, 'queued', 'manual', '{}', '{"tasks": []}', 'h', ${new Date(Date.UTC(2024, 0, 1, 0, i))})`.execute(tdb.db);
  }
  const begun: string[] = [];
  const finished = new Set<string>();
  let inFlight = 0;
  let most = 0;
  const evaluate = async (_dagId: string, runId: string) => {
    begun.push(runId);
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, 5));
    inFlight--;
    finished.add(runId);
  };
  const started = await startQueuedRuns({ db: tdb.db, queues: {} as Queues, notifier: nullNotifier, logger: silentLogger(), evaluate }, "burst");
  expect(started).toEqual(ids);
  expect(begun).toEqual(ids);
  expect(finished.size).toBe(ids.length);
  // One after another, the last run of a burst waited for every other's evaluation.
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(8);
});
