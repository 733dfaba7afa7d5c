import { sql } from "kysely";
import { createPool, type Db } from "@svc/db";
import { createTestDb, waitFor } from "@svc/testing";
import { analyzeGrownTables, grownTables } from "./table-stats";

/** A test database with one DAG, and a way to add its runs r<from>..r<to>. */
async function dbWithDag(name: string) {
  const tdb = await createTestDb(name);
  await sql`insert into dag (dag_id, fileloc, file_token, hash, definition, last_parsed_at) values ('d', 'd.yaml', 't', 'h', '{}', now())`.execute(tdb.db);
  const addRuns = (from: number, to: number) =>
    sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
      select 'd', 'r' || g, 'success', 'manual', '{}', '{}', 'h', now() - g * interval '1 second' from generate_series(${from}::int, ${to}::int) g`.execute(tdb.db);
  return { tdb, addRuns };
}

const analyzedSoon = (db: Db, table: string) =>
  // The cumulative statistics lag the inserts by up to a second.
  waitFor(async () => (await analyzeGrownTables(db)).includes(table), { timeoutMs: 10_000, what: `${table} analyzed` });

test("a watched table that at least doubled since its statistics is analyzed once; an empty, unchanged or unwatched one is not", async () => {
  const { tdb, addRuns } = await dbWithDag("tablestats");
  try {
    expect(await grownTables(tdb.db)).not.toContain("dag_run");
    await addRuns(1, 100);
    await sql`insert into import_error (filename, stacktrace, timestamp) select 'f' || g, 'e', now() from generate_series(1, 100) g`.execute(tdb.db);
    await analyzedSoon(tdb.db, "dag_run");
    const never = await sql<{ n: number }>`select count(*)::int as n from pg_stat_user_tables where relname = 'import_error' and last_analyze is not null`.execute(tdb.db);
    expect(never.rows[0]!.n).toBe(0);
    const { rows } = await sql<{ reltuples: number }>`select reltuples from pg_class where oid = 'dag_run'::regclass`.execute(tdb.db);
    expect(Number(rows[0]!.reltuples)).toBe(100);
    expect(await grownTables(tdb.db)).not.toContain("dag_run");
    // Half as many again is not a doubling.
    await addRuns(101, 150);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await grownTables(tdb.db)).not.toContain("dag_run");
  } finally {
    await tdb.drop();
  }
});

test("a foreign-key check planned while dag_run was small reads the run by its key once the grown table is analyzed", async () => {
  const { tdb, addRuns } = await dbWithDag("tablestatsfk");
  // One connection, so the checks share its kept plan; auto_explain sends each plan to it as a notice.
  const pool = createPool(tdb.url, { max: 1 });
  try {
    await addRuns(1, 3);
    const c = await pool.connect();
    await c.query("load 'auto_explain'");
    await c.query("set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set auto_explain.log_level = notice");
    c.release();
    /** The plan of the foreign-key check of one task instance inserted into run r1. */
    const fkPlan = async (taskId: string) => {
      const client = await pool.connect();
      const notices: string[] = [];
      const onNotice = (n: { message?: string }) => notices.push(n.message ?? "");
      client.on("notice", onNotice);
      try {
        await client.query("insert into task_instance (dag_id, run_id, task_id, operator) values ('d', 'r1', $1, 'noop')", [taskId]);
      } finally {
        client.off("notice", onNotice);
        client.release();
      }
      return notices.find((n) => n.includes('FROM ONLY "public"."dag_run"')) ?? "";
    };
    // Enough checks on the small table for the connection to keep one plan for them.
    for (let i = 0; i < 8; i++) await fkPlan(`early${i}`);
    await addRuns(4, 2000);
    // The kept plan: the (dag_id, logical_date) index, every run of the DAG read and filtered by run_id.
    const before = await fkPlan("before");
    expect(before).toContain("dag_run_dag_logical_idx");
    expect(before).toMatch(/Filter: \(run_id = /);
    await analyzedSoon(tdb.db, "dag_run");
    const after = await fkPlan("after");
    expect(after).toContain("dag_run_dag_id_run_id_key");
    expect(after).not.toMatch(/Filter: \(run_id = /);
  } finally {
    await pool.end();
    await tdb.drop();
  }
});
