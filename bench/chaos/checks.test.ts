import { createPool, type PgPool } from "@svc/db";
import { createTestDb, type TestDb } from "@svc/testing";
import { countRuns, installCommitAudit } from "./checks";

let tdb: TestDb;
let pool: PgPool;

beforeAll(async () => {
  tdb = await createTestDb("chaoschecks");
  pool = createPool(tdb.url, { max: 2 });
  await installCommitAudit(pool);
  await pool.query(`insert into dag_run (dag_id, run_id, state, run_type, definition, dag_hash, logical_date) values
    ('d', 'r1', 'running', 'manual', '{}', 'h', now()), ('d', 'r2', 'failed', 'manual', '{}', 'h', now())`);
  await pool.query(`insert into task_instance (dag_id, run_id, task_id, state, try_number, operator) values
    ('d', 'r1', 'a', 'running', 1, 'noop'), ('d', 'r1', 'b', 'queued', 1, 'noop'), ('d', 'r2', 'c', 'running', 1, 'noop')`);
});

afterAll(async () => {
  await pool.end();
  await tdb.drop();
});

describe("chaos checks from the database", () => {
  it("counts a try whose outcome landed twice, and not a try that landed once", async () => {
    await pool.query("update task_instance set state = 'success' where task_id = 'a'");
    expect((await countRuns(pool, "d")).doubleCommits).toBe(0);
    await pool.query("update task_instance set state = 'running' where task_id = 'a'");
    await pool.query("update task_instance set state = 'failed' where task_id = 'a'");
    expect((await countRuns(pool, "d")).doubleCommits).toBe(1);
  });

  it("counts unfinished runs, task instances not in a final state and failed runs without a stated reason", async () => {
    await pool.query("update task_instance set state = 'failed', error = null where task_id = 'c'");
    const c = await countRuns(pool, "d");
    expect(c).toMatchObject({ runs: 2, failed: 1, unfinishedRuns: 1, stuckTasks: 1, failedWithoutReason: 1 });
    await pool.query("update task_instance set error = 'boom' where task_id = 'c'");
    expect((await countRuns(pool, "d")).failedWithoutReason).toBe(0);
  });
});
