import { sql } from "kysely";
import { loadConfig } from "@svc/config";
import { silentLogger } from "@svc/logger";
import { createTestDb, type TestDb } from "@svc/testing";
import { nullNotifier } from "../notifier";
import { reapZombies } from "./zombies";

let tdb: TestDb;
let serverStart: Date;
beforeAll(async () => {
  tdb = await createTestDb("zombies");
  serverStart = (await sql<{ t: Date }>`select pg_postmaster_start_time() as t`.execute(tdb.db)).rows[0]!.t;
});
afterAll(async () => {
  await tdb.drop();
});

/** A running try of worker w1, whose last heartbeat and claim are a minute before the database server started. */
async function seedLostTry(runId: string): Promise<void> {
  const longAgo = new Date(serverStart.getTime() - 60_000);
  await sql`insert into dag (dag_id, fileloc, file_token, hash, definition, is_paused, max_active_runs, last_parsed_at)
    values ('z', '/dags/z.yaml', 't', 'h', '{"tasks": []}', false, 16, now()) on conflict do nothing`.execute(tdb.db);
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('z', ${runId}, 'running', 'manual', '{}', '{"tasks": []}', 'h', ${longAgo})`.execute(tdb.db);
  await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator, worker_id, start_date)
    values ('z', ${runId}, 't', 'running', 1, 0, 'bash', 'w1', ${longAgo})`.execute(tdb.db);
  await sql`insert into component_heartbeat (component, instance_id, hostname, pid, started_at, last_seen, info)
    values ('worker', 'w1', 'h', 1, ${longAgo}, ${longAgo}, '{}') on conflict do nothing`.execute(tdb.db);
}
const stateOf = async (runId: string) =>
  (await tdb.db.selectFrom("task_instance").select(["state", "try_number", "max_tries"]).where("run_id", "=", runId).executeTakeFirstOrThrow()).state;

function deps(now: Date) {
  const config = loadConfig({ SVC_ZOMBIE_AFTER_MS: "10000" });
  return { db: tdb.db, notifier: nullNotifier, logger: silentLogger(), config, clock: () => now };
}

test("right after the database server (re)started, no try counts as lost: workers could not write heartbeats while it was down", async () => {
  await seedLostTry("after-restart");
  // 5 s after the server started: less than the 10 s zombie period.
  expect(await reapZombies(deps(new Date(serverStart.getTime() + 5_000)))).toBe(0);
  expect(await stateOf("after-restart")).toBe("running");
});

test("once the server has been up for a whole zombie period, a try whose worker stayed silent is reaped and retried", async () => {
  await seedLostTry("silent-worker");
  expect(await reapZombies(deps(new Date(serverStart.getTime() + 15_000)))).toBeGreaterThanOrEqual(1);
  expect(await stateOf("silent-worker")).toBe("up_for_retry");
});
