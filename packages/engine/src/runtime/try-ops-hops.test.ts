import { sql } from "kysely";
import { createPool, type PgPool } from "@svc/db";
import { createTestDb, type TestDb } from "@svc/testing";
import { runTryOps, TRY_OPS_SQL, type TryOpsExecutor } from "./try-ops";

let tdb: TestDb;
let pool: PgPool;
let exec: TryOpsExecutor;
beforeAll(async () => {
  tdb = await createTestDb("tryhops");
  pool = createPool(tdb.url, { max: 1 });
  exec = async (values) => (await pool.query({ name: "svc_try_ops", text: TRY_OPS_SQL, values })).rows;
});
afterAll(async () => {
  await pool.end();
  await tdb.drop();
});

/** A running run whose tasks u1..uN are queued at try 1 and d1..dM have no state yet (try 0). */
async function seedRun(runId: string, up: number, down: number): Promise<void> {
  await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
    values ('d', ${runId}, 'running', 'manual', '{}', '{}', 'h1', ${new Date(Date.now() + Math.random() * 1e6)})`.execute(tdb.db);
  await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator)
    select 'd', ${runId}, 'u' || g, 'queued', 1, 2, 'noop' from generate_series(1, ${up}) g
    union all select 'd', ${runId}, 'd' || g, null, 0, 2, 'noop' from generate_series(1, ${down}) g`.execute(tdb.db);
}
const job = (runId: string, taskId: string, tryNumber = 1) => ({ dagId: "d", runId, taskId, tryNumber });
const fin = (runId: string, taskId: string, hops: string[], tryNumber = 1) => ({
  job: job(runId, taskId, tryNumber),
  workerId: "w1",
  operator: "noop",
  started: new Date(),
  output: {},
  logs: [],
  hops,
});
const states = async (runId: string) =>
  Object.fromEntries(
    (await tdb.db.selectFrom("task_instance").select(["task_id", "state", "try_number"]).where("run_id", "=", runId).orderBy("task_id").execute()).map((r) => [
      r.task_id,
      `${r.state ?? "none"}@${r.try_number}`,
    ]),
  );

test("a finish queues its hops in the same round, with their host, only when it lands; a hop that already has a state is left alone", async () => {
  await seedRun("fin", 2, 4);
  await sql`update task_instance set host = 'hv1' where run_id = 'fin' and task_id = 'd2'`.execute(tdb.db);
  await sql`update task_instance set state = 'success', try_number = 1 where run_id = 'fin' and task_id = 'd3'`.execute(tdb.db);
  const r = await runTryOps(exec, { claims: [], commits: [], finishes: [fin("fin", "u1", ["d1", "d2", "d3"]), fin("fin", "u2", ["d4"], 2)], openChecks: [] }, new Date());
  // u2 is not queued at try 2: its finish does not land, and its hop stays without a state.
  expect(r.finished).toEqual([true, false]);
  expect(r.queued.sort((a, b) => a.taskId.localeCompare(b.taskId))).toEqual([
    { dagId: "d", runId: "fin", taskId: "d1", tryNumber: 1, host: null },
    { dagId: "d", runId: "fin", taskId: "d2", tryNumber: 1, host: "hv1" },
  ]);
  expect(await states("fin")).toEqual({ d1: "queued@1", d2: "queued@1", d3: "success@1", d4: "none@0", u1: "success@1", u2: "queued@1" });
  // The same job delivered again: nothing lands, nothing is queued twice.
  const again = await runTryOps(exec, { claims: [], commits: [], finishes: [fin("fin", "u1", ["d1", "d2"])], openChecks: [] }, new Date());
  expect(again).toMatchObject({ finished: [false], queued: [] });
  expect(await states("fin")).toMatchObject({ d1: "queued@1", d2: "queued@1" });
});

test("a commit queues its hops only when it lands a success", async () => {
  await seedRun("commit", 3, 3);
  const claims = ["u1", "u2", "u3"].map((t) => ({ job: job("commit", t), workerId: "w1" }));
  await runTryOps(exec, { claims, commits: [], openChecks: [] }, new Date());
  const commit = (taskId: string, state: "success" | "failed" | "up_for_retry", hops: string[], workerId = "w1") => ({
    job: job("commit", taskId),
    workerId,
    outcome: { state, ...(state === "up_for_retry" ? { nextRetryAt: new Date(Date.now() + 60_000) } : {}) },
    logs: [],
    hops,
  });
  const r = await runTryOps(
    exec,
    { claims: [], commits: [commit("u1", "success", ["d1"]), commit("u2", "failed", ["d2"]), commit("u3", "success", ["d3"], "w2")], openChecks: [] },
    new Date(),
  );
  // u3's commit comes from a worker that does not hold the try: it does not land.
  expect(r.committed).toEqual([true, true, false]);
  expect(r.queued).toEqual([{ dagId: "d", runId: "commit", taskId: "d1", tryNumber: 1, host: null }]);
  expect(await states("commit")).toEqual({ d1: "queued@1", d2: "none@0", d3: "none@0", u1: "success@1", u2: "failed@1", u3: "running@1" });
});

test("no hop is queued in a run that is no longer running, though the finish lands", async () => {
  await seedRun("ended", 1, 1);
  await sql`update dag_run set state = 'failed' where run_id = 'ended'`.execute(tdb.db);
  const r = await runTryOps(exec, { claims: [], commits: [], finishes: [fin("ended", "u1", ["d1"])], openChecks: [] }, new Date());
  expect(r).toMatchObject({ finished: [true], queued: [] });
  expect(await states("ended")).toEqual({ d1: "none@0", u1: "success@1" });
});

test("a round of finishes with hops reaches every hop by key, never by scanning", async () => {
  await seedRun("plan", 40, 40);
  const client = await pool.connect();
  const plans: string[] = [];
  const onNotice = (n: { message?: string }) => void plans.push(n.message ?? "");
  client.on("notice", onNotice);
  try {
    await client.query("load 'auto_explain'");
    await client.query("set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set client_min_messages = log");
    const viaClient: TryOpsExecutor = async (values) => (await client.query(TRY_OPS_SQL, values)).rows;
    const finishes = Array.from({ length: 40 }, (_, i) => fin("plan", `u${i + 1}`, [`d${i + 1}`]));
    const r = await runTryOps(viaClient, { claims: [], commits: [], finishes, openChecks: [] }, new Date());
    expect(r.queued).toHaveLength(40);
  } finally {
    client.off("notice", onNotice);
    await client.query("reset client_min_messages; reset auto_explain.log_min_duration; reset auto_explain.log_nested_statements");
    client.release();
  }
  const plan = plans.find((p) => /jsonb_to_recordset\(p_finishes\)/.test(p));
  expect(plan).toBeDefined();
  // Two updates of task_instance (the finishes and their hops), each a key lookup per request.
  expect(plan!.match(/Update on task_instance/g)).toHaveLength(2);
  expect(plan).toMatch(
    /CTE Scan on hq q[^\n]*\n\s+->\s+Index Scan using task_instance_pkey on task_instance ti_1[^\n]*\n\s+Index Cond: \(\(dag_id = q.dag_id\) AND \(run_id = q.run_id\) AND \(task_id = q.task_id\)/,
  );
  expect(plan!.match(/Index Scan using task_instance_pkey on task_instance ti/g)).toHaveLength(2);
  expect(plan).toMatch(/Index Scan using dag_run_\w+ on dag_run d/);
  expect(plan).not.toMatch(/Seq Scan|Hash Join|Merge Join|Bitmap Heap Scan/);
});

test("a commit that keeps a hop has its round claim that hop for its worker and queue the others; a kept hop routed to a host is only queued", async () => {
  await seedRun("keep", 2, 4);
  await sql`update task_instance set host = 'hv1' where run_id = 'keep' and task_id = 'd4'`.execute(tdb.db);
  await sql`update dag_run set conf = '{"who": "me"}' where run_id = 'keep'`.execute(tdb.db);
  await runTryOps(exec, { claims: ["u1", "u2"].map((t) => ({ job: job("keep", t), workerId: "w1" })), commits: [], openChecks: [] }, new Date());
  const commit = (taskId: string, hops: string[], keep: string) => ({ job: job("keep", taskId), workerId: "w1", outcome: { state: "success" as const }, logs: [], hops, keep });
  const now = new Date();
  const r = await runTryOps(exec, { claims: [], commits: [commit("u1", ["d1", "d2"], "d2"), commit("u2", ["d3", "d4"], "d4")], openChecks: [] }, now);
  expect(r.committed).toEqual([true, true]);
  const byTask = Object.fromEntries(r.queued.map((q) => [q.taskId, q]));
  expect(Object.keys(byTask).sort()).toEqual(["d1", "d2", "d3", "d4"]);
  expect(byTask.d2).toMatchObject({ tryNumber: 1, host: null, claimed: { max_tries: 2, dag_hash: "h1", conf: { who: "me" }, dag_id: "d", run_id: "keep" } });
  for (const t of ["d1", "d3"]) expect(byTask[t]!.claimed).toBeUndefined();
  expect(byTask.d4).toEqual({ dagId: "d", runId: "keep", taskId: "d4", tryNumber: 1, host: "hv1" });
  expect(await states("keep")).toMatchObject({ d1: "queued@1", d2: "running@1", d3: "queued@1", d4: "queued@1" });
  const d2 = await tdb.db.selectFrom("task_instance").selectAll().where("run_id", "=", "keep").where("task_id", "=", "d2").executeTakeFirstOrThrow();
  expect(d2).toMatchObject({ worker_id: "w1", hostname: byTask.d2!.claimed!.hostname, pid: process.pid });
  expect(new Date(d2.start_date!).getTime()).toBe(now.getTime());
  // The kept hop is this worker's: a claim of it (a job sent anyway) finds it no longer queued.
  expect((await runTryOps(exec, { claims: [{ job: job("keep", "d2"), workerId: "w2" }], commits: [], openChecks: [] }, new Date())).claimed).toEqual([undefined]);
});

test("a finish that keeps a hop claims it only when the finish lands", async () => {
  await seedRun("fkeep", 2, 2);
  const r = await runTryOps(
    exec,
    {
      claims: [],
      commits: [],
      finishes: [
        { ...fin("fkeep", "u1", ["d1"]), keep: "d1" },
        { ...fin("fkeep", "u2", ["d2"], 2), keep: "d2" },
      ],
      openChecks: [],
    },
    new Date(),
  );
  expect(r.finished).toEqual([true, false]);
  expect(r.queued).toEqual([{ dagId: "d", runId: "fkeep", taskId: "d1", tryNumber: 1, host: null, claimed: expect.objectContaining({ max_tries: 2 }) }]);
  expect(await states("fkeep")).toEqual({ d1: "running@1", d2: "none@0", u1: "success@1", u2: "queued@1" });
});
