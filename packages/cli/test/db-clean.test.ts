import { sql } from "kysely";
import { createTestDb, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("dbclean");
});
afterAll(async () => {
  await tdb?.drop();
});

async function addRun(runId: string, state: string, endedDaysAgo: number | null) {
  const end = endedDaysAgo === null ? null : sql<Date>`now() - make_interval(days => ${endedDaysAgo})`;
  await sql`insert into dag_run (dag_id, run_id, state, run_type, definition, dag_hash, logical_date, end_date, updated_at)
            values ('d', ${runId}, ${state}, 'manual', '{}'::jsonb, 'h', now() - make_interval(days => ${endedDaysAgo ?? 40}), ${end}, now() - make_interval(days => ${endedDaysAgo ?? 40}))`.execute(
    tdb.db,
  );
  await sql`insert into task_instance (dag_id, run_id, task_id, state, operator) values ('d', ${runId}, 't', ${state === "running" ? "running" : state}, 'noop')`.execute(tdb.db);
  await sql`insert into task_log (dag_id, run_id, task_id, try_number, stream, line) values ('d', ${runId}, 't', 1, 'stdout', 'a line')`.execute(tdb.db);
}
async function addFlow(id: string, status: string, daysAgo: number) {
  await sql`insert into flow (flow_id, execution_id, intent, status, updated_at) values (${id}, ${`e-${id}`}, 'x', ${status}, now() - make_interval(days => ${daysAgo}))`.execute(
    tdb.db,
  );
}
async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(args, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: { DATABASE_URL: tdb.url, SVC_LOG_LEVEL: "silent" } });
  return { code, out, err };
}
const runIds = async () => (await tdb.db.selectFrom("dag_run").select("run_id").orderBy("run_id").execute()).map((r) => r.run_id);

test("db clean removes finished runs, final flows and idempotency keys older than the age, with task instances and logs; --dry-run only counts", async () => {
  await addRun("old-success", "success", 40);
  await addRun("old-failed", "failed", 31);
  await addRun("new-success", "success", 5);
  await addRun("old-running", "running", null);
  await addFlow("f-old-done", "completed", 40);
  await addFlow("f-old-waiting", "awaiting_approval", 40);
  await addFlow("f-new-done", "failed", 2);
  await sql`insert into idempotency_key (scope, key, ref, created_at) values ('intent:a', 'old', 'f-old-done', now() - interval '40 days'), ('intent:a', 'new', 'f-new-done', now())`.execute(
    tdb.db,
  );

  const dry = await cli(["db", "clean", "--older-than", "30d", "--dry-run"]);
  expect(dry).toMatchObject({
    code: 0,
    out: "Would delete 2 dag_run row(s)\nWould delete 2 task_instance row(s)\nWould delete 2 task_log row(s)\nWould delete 1 idempotency_key row(s)\nWould delete 1 flow row(s)\n",
  });
  expect(await runIds()).toHaveLength(4);

  const real = await cli(["db", "clean", "--older-than", "30d"]);
  expect(real.out).toContain("Deleted 2 dag_run row(s)");
  expect(await runIds()).toEqual(["new-success", "old-running"]);
  expect((await tdb.db.selectFrom("task_log").select("run_id").execute()).map((r) => r.run_id).sort()).toEqual(["new-success", "old-running"]);
  expect((await tdb.db.selectFrom("flow").select("flow_id").orderBy("flow_id").execute()).map((r) => r.flow_id)).toEqual(["f-new-done", "f-old-waiting"]);
  expect((await tdb.db.selectFrom("idempotency_key").select("key").execute()).map((r) => r.key)).toEqual(["new"]);
});

test("db clean needs a valid --older-than", async () => {
  expect((await cli(["db", "clean"])).err).toMatch(/--older-than is required/);
  expect((await cli(["db", "clean", "--older-than", "30 days"])).err).toMatch(/positive age such as 30d/);
  expect((await cli(["db", "clean", "--older-than", "0d"])).code).not.toBe(0);
});
