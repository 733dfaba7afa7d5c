import { sql } from "kysely";
import { createPool, type PgPool } from "@svc/db";
import { createTestDb, waitFor, type TestDb } from "@svc/testing";
import { readRun } from "./run-read";
import { runTryOps, TRY_OPS_SQL, type TryOpsExecutor } from "./try-ops";

let tdb: TestDb;
let pool: PgPool;
let exec: TryOpsExecutor;
beforeAll(async () => {
  tdb = await createTestDb("tryops");
  pool = createPool(tdb.url, { max: 1 });
  exec = async (values) => (await pool.query({ name: "svc_try_ops", text: TRY_OPS_SQL, values })).rows;
});
afterAll(async () => {
  await pool.end();
  await tdb.drop();
});

async function seedRun(runId: string, tasks: number, state = "queued"): Promise<void> {
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('d', ${runId}, 'running', 'manual', '{"x": 1}', '{}', 'h1', ${new Date(Date.now() + Math.random() * 1e6)})`.execute(tdb.db);
  await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator)
    select 'd', ${runId}, 't' || g, ${state}, 1, 2, 'noop' from generate_series(1, ${tasks}) g`.execute(tdb.db);
}
const job = (runId: string, taskId: string, tryNumber = 1) => ({ dagId: "d", runId, taskId, tryNumber });
const tiOf = (runId: string, taskId: string) =>
  tdb.db.selectFrom("task_instance").select(["state", "worker_id", "output", "error"]).where("run_id", "=", runId).where("task_id", "=", taskId).executeTakeFirstOrThrow();
const logsOf = async (runId: string, taskId: string) =>
  (await tdb.db.selectFrom("task_log").select("line").where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute()).map((r) => r.line);

test("a claim takes a queued try at its try number once, and returns the run's context", async () => {
  await seedRun("claim", 3);
  const r = await runTryOps(
    exec,
    {
      claims: [
        { job: job("claim", "t1"), workerId: "w1" },
        { job: job("claim", "t1"), workerId: "w2" },
        { job: job("claim", "t2", 2), workerId: "w1" },
      ],
      commits: [],
      openChecks: [],
    },
    new Date(),
  );
  expect(r.claimed[0]).toMatchObject({ dag_id: "d", run_id: "claim", dag_hash: "h1", conf: { x: 1 }, max_tries: 2 });
  expect(r.claimed[1]).toBeUndefined(); // the same job delivered twice in one round
  expect(r.claimed[2]).toBeUndefined(); // not queued at try 2
  expect(await tiOf("claim", "t1")).toMatchObject({ state: "running", worker_id: "w1" });
  expect(await tiOf("claim", "t2")).toMatchObject({ state: "queued", worker_id: null });
  const again = await runTryOps(exec, { claims: [{ job: job("claim", "t1"), workerId: "w3" }], commits: [], openChecks: [] }, new Date());
  expect(again.claimed).toEqual([undefined]);
});

test("a commit lands only for the worker that runs that try, with its log lines in order; a refused commit changes nothing", async () => {
  await seedRun("commit", 2);
  await runTryOps(
    exec,
    {
      claims: [
        { job: job("commit", "t1"), workerId: "w1" },
        { job: job("commit", "t2"), workerId: "w1" },
      ],
      commits: [],
      openChecks: [],
    },
    new Date(),
  );
  const r = await runTryOps(
    exec,
    {
      claims: [],
      commits: [
        {
          job: job("commit", "t1"),
          workerId: "w1",
          outcome: { state: "success", output: { ip: "10.0.0.5" } },
          logs: [
            { stream: "system", line: "first" },
            { stream: "stdout", line: "second" },
          ],
        },
        { job: job("commit", "t2"), workerId: "w-other", outcome: { state: "failed", error: "boom" }, logs: [] },
      ],
      openChecks: [],
    },
    new Date(),
  );
  expect(r.committed).toEqual([true, false]);
  expect(await tiOf("commit", "t1")).toMatchObject({ state: "success", output: { ip: "10.0.0.5" } });
  expect(await tiOf("commit", "t2")).toMatchObject({ state: "running", error: null });
  expect(await logsOf("commit", "t1")).toEqual(["first", "second"]);
  const twice = await runTryOps(
    exec,
    { claims: [], commits: [{ job: job("commit", "t1"), workerId: "w1", outcome: { state: "failed", error: "late" }, logs: [] }], openChecks: [] },
    new Date(),
  );
  expect(twice.committed).toEqual([false]);
  expect(await tiOf("commit", "t1")).toMatchObject({ state: "success" });
});

test("an open check reports whether the run still has unfinished tasks, seeing the commits of its own round (also through Kysely)", async () => {
  await seedRun("open", 2);
  await runTryOps(
    tdb.db,
    {
      claims: [
        { job: job("open", "t1"), workerId: "w" },
        { job: job("open", "t2"), workerId: "w" },
      ],
      commits: [],
      openChecks: [],
    },
    new Date(),
  );
  const ok = (t: string) => ({ job: job("open", t), workerId: "w", outcome: { state: "success" as const, output: {} }, logs: [] });
  const first = await runTryOps(exec, { claims: [], commits: [ok("t1")], openChecks: [job("open", "t1")] }, new Date());
  expect(first.open).toEqual([true]);
  expect(first.reads).toEqual([undefined]);
  const last = await runTryOps(tdb.db, { claims: [], commits: [ok("t2")], openChecks: [job("open", "t2"), job("open", "t1")] }, new Date());
  expect(last.open).toEqual([false, false]);
  // A run found without unfinished tasks comes back read as an evaluation reads it (its end then needs no read).
  const read = await readRun(tdb.db, "d", "open", 0);
  expect(read?.tis).toHaveLength(2);
  expect(last.reads).toEqual([read, read]);
  expect(last.reads[0]).toMatchObject({ state: "running", conf: { x: 1 }, dag_hash: "h1" });
  // A run that does not exist is neither open nor read.
  const gone = await runTryOps(exec, { claims: [], commits: [], openChecks: [job("gone", "t1")] }, new Date());
  expect(gone).toMatchObject({ open: [false], reads: [undefined] });
});

test("a finish writes an instant try's success from queued in one step, once, with its log lines only when it lands", async () => {
  await seedRun("finish", 3);
  const started = new Date(Date.now() - 5);
  const fin = (taskId: string, tryNumber = 1, line = "ran", operator = "noop") => ({
    job: job("finish", taskId, tryNumber),
    workerId: "w1",
    operator,
    started,
    output: { ok: true },
    logs: [
      { stream: "system" as const, line },
      { stream: "stdout" as const, line: `${line} 2` },
    ],
  });
  await runTryOps(exec, { claims: [{ job: job("finish", "t3"), workerId: "w9" }], commits: [], openChecks: [] }, new Date());
  const r = await runTryOps(
    exec,
    { claims: [], commits: [], finishes: [fin("t1"), fin("t1", 1, "twice"), fin("t2", 2), fin("t3"), fin("t2", 1, "other", "shell")], openChecks: [job("finish", "t1")] },
    new Date(),
  );
  // t1 lands once (the same job twice in a round); t2 is not queued at try 2, nor a shell task;
  // t3 was claimed by a worker.
  expect(r.finished).toEqual([true, false, false, false, false]);
  expect(r.open).toEqual([true]);
  const t1 = await tdb.db.selectFrom("task_instance").selectAll().where("run_id", "=", "finish").where("task_id", "=", "t1").executeTakeFirstOrThrow();
  expect(t1).toMatchObject({ state: "success", worker_id: "w1", output: { ok: true }, try_number: 1 });
  expect(new Date(t1.start_date!).getTime()).toBe(started.getTime());
  expect(await logsOf("finish", "t1")).toEqual(["ran", "ran 2"]);
  expect(await logsOf("finish", "t2")).toEqual([]);
  expect(await tiOf("finish", "t2")).toMatchObject({ state: "queued" });
  expect(await tiOf("finish", "t3")).toMatchObject({ state: "running", worker_id: "w9" });
  const again = await runTryOps(exec, { claims: [], commits: [], finishes: [fin("t1", 1, "late")], openChecks: [] }, new Date());
  expect(again.finished).toEqual([false]);
  expect(await logsOf("finish", "t1")).toEqual(["ran", "ran 2"]);
});

test.each([
  ["no statistics", async () => undefined],
  [
    "statistics from before the burst, when every task had finished",
    async () => {
      await seedRun("before", 3000, "success");
      await sql`analyze task_instance`.execute(tdb.db);
    },
  ],
])("rounds on a burst of new tasks, with %s, claim, commit and finish in one statement each that reaches every row by key, never by scanning", async (_, setUp) => {
  await setUp();
  const runId = `burst-${Math.random().toString(36).slice(2, 8)}`;
  await seedRun(runId, 3000);
  // auto_explain sends the plan of every statement inside svc_try_ops to this client as a notice.
  const client = await pool.connect();
  const plans: string[] = [];
  const onNotice = (n: { message?: string }) => void plans.push(n.message ?? "");
  client.on("notice", onNotice);
  const viaClient: TryOpsExecutor = async (values) => (await client.query(TRY_OPS_SQL, values)).rows;
  try {
    await client.query("load 'auto_explain'");
    await client.query("set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set client_min_messages = log");
    const jobs = Array.from({ length: 50 }, (_, i) => job(runId, `t${i + 1}`));
    const claimed = await runTryOps(viaClient, { claims: jobs.map((j) => ({ job: j, workerId: "w" })), commits: [], openChecks: [] }, new Date());
    expect(claimed.claimed.filter(Boolean)).toHaveLength(50);
    const commits = jobs.map((j) => ({ job: j, workerId: "w", outcome: { state: "success" as const, output: {} }, logs: [{ stream: "system" as const, line: "done" }] }));
    const finishes = Array.from({ length: 50 }, (_, i) => ({
      job: job(runId, `t${i + 51}`),
      workerId: "w",
      operator: "noop",
      started: new Date(),
      output: {},
      logs: [{ stream: "system" as const, line: "instant" }],
    }));
    const done = await runTryOps(viaClient, { claims: [], commits, finishes, openChecks: [jobs[0]!] }, new Date());
    expect(done.committed.every(Boolean)).toBe(true);
    expect(done.finished.every(Boolean)).toBe(true);
    expect(done.open).toEqual([true]);
  } finally {
    client.off("notice", onNotice);
    await client.query("reset client_min_messages; reset auto_explain.log_min_duration; reset auto_explain.log_nested_statements");
    client.release();
  }
  // Each round updates in one statement: the requests drive a nested loop of key lookups. Claims
  // look their run up by index.
  const updates = plans.filter((p) => /Update on task_instance/.test(p));
  // Claims of the first round; commits and finishes of the second: a kind a round has none of runs no statement.
  expect(updates).toHaveLength(3);
  expect(plans.filter((p) => /jsonb_to_recordset\(p_claims\)/.test(p))).toHaveLength(1);
  expect(plans.filter((p) => /jsonb_to_recordset\(p_finishes\)/.test(p))).toHaveLength(1);
  for (const u of updates)
    expect(u).toMatch(
      /Nested Loop[^\n]*\n\s+->\s+CTE Scan on x(?: (x_\d))?[\s\S]*Index Scan using task_instance_\w+ on task_instance ti[^\n]*\n\s+Index Cond: \(\(dag_id = (x|\1)\.dag_id\) AND \(run_id = (x|\1)\.run_id\) AND \(task_id = (x|\1)\.task_id\)/,
    );
  expect(plans.find((p) => /dag_run d/.test(p))).toMatch(/CTE Scan on c[\s\S]*Index Scan using dag_run_\w+ on dag_run d/);
  // The open check reads the run's task instances by the primary key (no index on state: migration 006).
  expect(plans.some((p) => /Index Scan using task_instance_pkey on task_instance t\b/.test(p) && !/Update on/.test(p))).toBe(true);
  for (const p of plans.filter((x) => /task_instance/.test(x))) {
    expect(p).toMatch(/Index (Only )?Scan/);
    expect(p).not.toMatch(/Seq Scan on task_instance|Hash Join|Bitmap Heap Scan on task_instance/);
  }
  const finished = await tdb.db
    .selectFrom("task_instance")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("run_id", "=", runId)
    .where("state", "=", "success")
    .executeTakeFirstOrThrow();
  expect(Number(finished.n)).toBe(100);
});

test("a try's state changes are heap-only updates: no index of task_instance reads state, and claims and commits write no index entry", async () => {
  const indexes = await sql<{ def: string }>`select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = 'task_instance'::regclass`.execute(tdb.db);
  expect(indexes.rows.length).toBeGreaterThan(0);
  for (const r of indexes.rows) expect(r.def).not.toMatch(/\bstate\b/);
  await seedRun("hot", 200);
  const jobs = Array.from({ length: 200 }, (_, i) => job("hot", `t${i + 1}`));
  // Counted by the backend that makes the updates, before each round's commit (pg_stat_get_xact_*:
  // its counts not yet flushed): the shared table statistics also take in other backends' pending
  // counts whenever those are flushed, which under load made this test read unrelated updates.
  const client = await pool.connect();
  try {
    const inTx: TryOpsExecutor = async (values) => (await client.query(TRY_OPS_SQL, values)).rows;
    // Each round in a transaction of its own, as the worker sends them, counted before its commit.
    const counted = async (ops: Parameters<typeof runTryOps>[1]) => {
      // This backend's counts not yet in the shared statistics are flushed first: what follows is the round's alone.
      await client.query("select pg_stat_force_next_flush()");
      await client.query("select 1");
      await client.query("begin");
      await runTryOps(inTx, ops, new Date());
      const { rows } = await client.query<{ upd: string; hot: string; xid: string }>(
        "select pg_stat_get_xact_tuples_updated('task_instance'::regclass) as upd, pg_stat_get_xact_tuples_hot_updated('task_instance'::regclass) as hot, txid_current() as xid",
      );
      await client.query("commit");
      return { upd: Number(rows[0]!.upd), hot: Number(rows[0]!.hot), xid: BigInt(rows[0]!.xid) };
    };
    const claims = await counted({ claims: jobs.map((j) => ({ job: j, workerId: "w" })), commits: [], openChecks: [] });
    // A page is pruned of the versions the claims left behind only once no transaction anywhere in
    // the cluster is older than the claims (snapshots carry the cluster's oldest xmin): other test
    // files' transactions may be, so wait for them to end before the commits.
    await waitFor(async () => BigInt((await client.query<{ x: string }>("select txid_snapshot_xmin(txid_current_snapshot()) as x")).rows[0]!.x) > claims.xid, {
      timeoutMs: 20_000,
      what: "every transaction older than the claims to end",
    });
    const commits = await counted({ claims: [], commits: jobs.map((j) => ({ job: j, workerId: "w", outcome: { state: "success" as const }, logs: [] })), openChecks: [] });
    expect({ claims: claims.upd, commits: commits.upd }).toEqual({ claims: 200, commits: 200 });
    expect((claims.hot + commits.hot) / 400).toBeGreaterThan(0.9);
  } finally {
    client.release();
  }
});
