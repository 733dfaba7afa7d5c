import { sql } from "kysely";
import { createPool } from "@svc/db";
import { createTestDb, type TestDb } from "@svc/testing";
import type { RunDecision } from "../core/decide";
import { applyDecision as applyFull, readRun } from "./run-read";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("runread");
});
afterAll(async () => {
  await tdb.drop();
});

/** A running run with tasks in the given states (try 0 for tasks without a state, 1 otherwise). */
async function seedRun(runId: string, states: (string | null)[]): Promise<void> {
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('d', ${runId}, 'running', 'manual', '{}', '{}', 'h1', ${new Date(Date.now() + Math.random() * 1e9)})`.execute(tdb.db);
  await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator)
    select 'd', ${runId}, 't' || (n - 1), s, case when s is null then 0 else 1 end, 1, 'noop'
    from unnest(${states}::text[]) with ordinality as x(s, n)`.execute(tdb.db);
}
/** The tries a decision queued, or undefined when it did not land. */
const applyDecision = async (...args: Parameters<typeof applyFull>) => (await applyFull(...args))?.queued;
const decision = (d: Partial<RunDecision>): RunDecision => ({ queue: [], skip: [], upstreamFailed: [], runState: "running", wakeAt: null, ...d });
const states = async (runId: string) =>
  Object.fromEntries(
    (await tdb.db.selectFrom("task_instance").select(["task_id", "state", "try_number"]).where("run_id", "=", runId).execute()).map((t) => [
      t.task_id,
      `${t.state}@${t.try_number}`,
    ]),
  );
const runRow = (runId: string) => tdb.db.selectFrom("dag_run").select(["state", "version", "evaluated_version", "end_date"]).where("run_id", "=", runId).executeTakeFirstOrThrow();

test("a read carries the task instances only when a decision can change", async () => {
  await seedRun("busy", ["running", "queued", "success"]);
  await seedRun("waiting", ["success", null]);
  await seedRun("done", ["success", "failed"]);
  expect((await readRun(tdb.db, "d", "busy", 0))!.tis).toBeUndefined();
  expect((await readRun(tdb.db, "d", "waiting", 0))!.tis).toEqual([
    { task_id: "t0", state: "success", try_number: 1, next_retry_at: null },
    { task_id: "t1", state: null, try_number: 0, next_retry_at: null },
  ]);
  expect((await readRun(tdb.db, "d", "done", 0))!.tis).toHaveLength(2);
  // Already evaluated at the version asked for: no task rows either.
  const v = (await runRow("waiting")).version;
  await sql`update dag_run set evaluated_version = ${v} where run_id = 'waiting'`.execute(tdb.db);
  expect((await readRun(tdb.db, "d", "waiting", v))!.tis).toBeUndefined();
  expect(await readRun(tdb.db, "d", "nope", 0)).toBeUndefined();
});

test("a retry time comes back as a date", async () => {
  await seedRun("retry", ["up_for_retry"]);
  const at = new Date("2030-01-02T03:04:05.678Z");
  await sql`update task_instance set next_retry_at = ${at} where run_id = 'retry'`.execute(tdb.db);
  expect((await readRun(tdb.db, "d", "retry", 0))!.tis![0]!.next_retry_at).toEqual(at);
});

test("a decision lands in one statement: queued tries with their next try number, skips, upstream failures and the evaluated version", async () => {
  await seedRun("apply", [null, null, null, "success"]);
  const run = (await readRun(tdb.db, "d", "apply", 0))!;
  const queued = await applyDecision(tdb.db, run, decision({ queue: [{ task_id: "t0", try_number: 1 }], skip: ["t1"], upstreamFailed: ["t2"] }), new Date());
  expect(queued).toEqual([{ task_id: "t0", try_number: 1 }]);
  expect(await states("apply")).toEqual({ t0: "queued@1", t1: "skipped@0", t2: "upstream_failed@0", t3: "success@1" });
  expect((await runRow("apply")).evaluated_version).toBe(run.version);
});

test("a decision's transaction commits without waiting for the disk (synchronous_commit off for it alone); a try outcome's still waits", async () => {
  await seedRun("async", [null, "success"]);
  const run = (await readRun(tdb.db, "d", "async", 0))!;
  const commitMode = async (db: Parameters<typeof applyDecision>[0]) =>
    (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(db)).rows[0]!.synchronous_commit;
  await tdb.db.transaction().execute(async (trx) => {
    expect(await commitMode(trx)).toBe("on");
    expect(await applyDecision(trx, run, decision({ queue: [{ task_id: "t0", try_number: 1 }] }), new Date())).toHaveLength(1);
    expect(await commitMode(trx)).toBe("off");
  });
  // A try's outcome is what must be durable: svc_try_ops leaves its transaction waiting for the disk.
  await tdb.db.transaction().execute(async (trx) => {
    await sql`select * from svc_try_ops(now(), 'h', 1, '[]'::jsonb, '[]'::jsonb, '[]'::jsonb, '[]'::jsonb, '[]'::jsonb)`.execute(trx);
    expect(await commitMode(trx)).toBe("on");
  });
  expect(await states("async")).toEqual({ t0: "queued@1", t1: "success@1" });
});

test("the same decision applied twice (two schedulers) queues each try once; the second gets none back", async () => {
  await seedRun("twice", [null, null]);
  const run = (await readRun(tdb.db, "d", "twice", 0))!;
  const d = decision({
    queue: [
      { task_id: "t0", try_number: 1 },
      { task_id: "t1", try_number: 1 },
    ],
  });
  expect(await applyDecision(tdb.db, run, d, new Date())).toHaveLength(2);
  expect(await applyDecision(tdb.db, run, d, new Date())).toEqual([]);
  expect(await states("twice")).toEqual({ t0: "queued@1", t1: "queued@1" });
});

test("a task whose try moved on since the read is not queued again, and the others still are", async () => {
  await seedRun("moved", [null, null]);
  const run = (await readRun(tdb.db, "d", "moved", 0))!;
  // Another scheduler queued t0 and it failed into a retry meanwhile: state up_for_retry at try 1.
  await sql`update task_instance set state = 'up_for_retry', try_number = 1 where run_id = 'moved' and task_id = 't0'`.execute(tdb.db);
  const queued = await applyDecision(
    tdb.db,
    run,
    decision({
      queue: [
        { task_id: "t0", try_number: 1 },
        { task_id: "t1", try_number: 1 },
      ],
    }),
    new Date(),
  );
  expect(queued).toEqual([{ task_id: "t1", try_number: 1 }]);
  expect(await states("moved")).toEqual({ t0: "up_for_retry@1", t1: "queued@1" });
});

test("a decision read before an API write (version bump) or after the run ended changes nothing", async () => {
  await seedRun("stale", [null, null]);
  const run = (await readRun(tdb.db, "d", "stale", 0))!;
  await sql`update dag_run set version = version + 1 where run_id = 'stale'`.execute(tdb.db);
  const before = await runRow("stale");
  expect(await applyDecision(tdb.db, run, decision({ queue: [{ task_id: "t0", try_number: 1 }], skip: ["t1"], runState: "success" }), new Date())).toBeUndefined();
  expect(await states("stale")).toEqual({ t0: "null@0", t1: "null@0" });
  expect(await runRow("stale")).toEqual(before);

  await seedRun("ended", ["success"]);
  const ended = (await readRun(tdb.db, "d", "ended", 0))!;
  await sql`update dag_run set state = 'failed' where run_id = 'ended'`.execute(tdb.db);
  expect(await applyDecision(tdb.db, ended, decision({ runState: "success" }), new Date())).toBeUndefined();
  expect((await runRow("ended")).state).toBe("failed");
});

test("a final run state ends the run with its end date; a skip never overwrites a task that has a state", async () => {
  await seedRun("final", ["success", "running"]);
  const run = (await readRun(tdb.db, "d", "final", 0))!;
  const now = new Date("2031-05-06T07:08:09.000Z");
  expect(await applyDecision(tdb.db, run, decision({ skip: ["t1"], runState: "success" }), now)).toEqual([]);
  expect(await states("final")).toEqual({ t0: "success@1", t1: "running@1" });
  expect(await runRow("final")).toMatchObject({ state: "success", end_date: now });
});

test("a decision that ends a run says whether its DAG has a queued run, in the same statement; one that does not end it never says so", async () => {
  await seedRun("ends-alone", ["success"]);
  const alone = (await readRun(tdb.db, "d", "ends-alone", 0))!;
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('other', 'q', 'queued', 'manual', '{}', '{}', 'h1', now())`.execute(tdb.db);
  // A queued run of another DAG frees nothing here.
  expect(await applyFull(tdb.db, alone, decision({ runState: "success" }), new Date())).toEqual({ queued: [], dagHasQueuedRuns: false });

  await seedRun("ends-queue", ["failed"]);
  await seedRun("goes-on", [null, "success"]);
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('d', 'waits', 'queued', 'manual', '{}', '{}', 'h1', now())`.execute(tdb.db);
  const ending = (await readRun(tdb.db, "d", "ends-queue", 0))!;
  expect(await applyFull(tdb.db, ending, decision({ runState: "failed" }), new Date())).toEqual({ queued: [], dagHasQueuedRuns: true });
  const going = (await readRun(tdb.db, "d", "goes-on", 0))!;
  expect(await applyFull(tdb.db, going, decision({ queue: [{ task_id: "t0", try_number: 1 }] }), new Date())).toEqual({
    queued: [{ task_id: "t0", try_number: 1 }],
    dagHasQueuedRuns: false,
  });
  // A stale decision that would end a run lands nothing and says nothing either.
  await sql`update dag_run set version = version + 1 where run_id = 'goes-on'`.execute(tdb.db);
  expect(await applyFull(tdb.db, going, decision({ runState: "success" }), new Date())).toBeUndefined();
  await sql`delete from dag_run where run_id in ('q', 'waits')`.execute(tdb.db);
});

test("queueing a thousand tasks of a new run (no table statistics yet) hash-joins them with the run's rows: no nested loop, no sequential scan", async () => {
  await seedRun(
    "wide",
    Array.from({ length: 1000 }, () => null),
  );
  const run = (await readRun(tdb.db, "d", "wide", 0))!;
  const pool = createPool(tdb.url, { max: 1 });
  const client = await pool.connect();
  const plans: string[] = [];
  client.on("notice", (n: { message?: string }) => void plans.push(n.message ?? ""));
  try {
    await client.query("load 'auto_explain'");
    await client.query("set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set client_min_messages = log");
    const queue = run.tis!.map((t) => ({ task_id: t.task_id, try_number: 1 }));
    const { rows } = await client.query("select * from svc_apply_decision($1, $2, now(), $3::text[], $4::int[], '{}'::text[], '{}'::text[], null)", [
      run.id,
      run.version,
      queue.map((q) => q.task_id),
      queue.map(() => 0),
    ]);
    expect(rows[0]).toEqual({ applied: true, missed: null });
  } finally {
    client.release();
    await pool.end();
  }
  const update = plans.find((p) => /Update on task_instance/.test(p) && /unnest/.test(p));
  expect(update).toMatch(/Hash Join[\s\S]*Index Scan using task_instance_pkey on task_instance ti/);
  expect(update).not.toMatch(/Nested Loop|Seq Scan on task_instance/);
  expect(Object.values(await states("wide")).every((s) => s === "queued@1")).toBe(true);
});
