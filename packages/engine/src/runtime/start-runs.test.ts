import { sql } from "kysely";
import { silentLogger } from "@svc/logger";
import type { Queues } from "@svc/queue";
import { createTestDb, type TestDb } from "@svc/testing";
import { nullNotifier } from "../notifier";
import { startQueuedRuns } from "./start-runs";
import { evaluateRun } from "./evaluate-run";
import { takePrimedRead, withPrimedRead } from "./primed-read";
import { readRun, type RunRead } from "./run-read";
import { runDefinition } from "./definition-cache";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("startruns");
});
afterAll(async () => {
  await tdb.drop();
});

async function seedDag(dagId: string, opts: { paused: boolean; maxActiveRuns: number; runs: [string, string][] }): Promise<void> {
  await sql`insert into dag (dag_id, fileloc, file_token, hash, definition, is_paused, max_active_runs, last_parsed_at)
    values (${dagId}, ${`/dags/${dagId}.yaml`}, 't', 'h', '{"tasks": []}', ${opts.paused}, ${opts.maxActiveRuns}, now())`.execute(tdb.db);
  for (const [runId, day] of opts.runs) {
    await sql`insert into dag_run (dag_id, run_id, state, run_type, conf, definition, dag_hash, logical_date)
      values (${dagId}, ${runId}, 'queued', 'manual', '{}', '{"tasks": []}', 'h', ${new Date(`2024-01-${day}T00:00:00Z`)})`.execute(tdb.db);
  }
}
const runs = async (dagId: string) =>
  Object.fromEntries(
    (await tdb.db.selectFrom("dag_run").select(["run_id", "state", "version"]).where("dag_id", "=", dagId).execute()).map((r) => [r.run_id, `${r.state}@${r.version}`]),
  );

function deps() {
  const evaluated: string[] = [];
  return {
    evaluated,
    deps: {
      db: tdb.db,
      queues: {} as Queues,
      notifier: nullNotifier,
      logger: silentLogger(),
      evaluate: async (dagId: string, runId: string, minVersion: number) => void evaluated.push(`${dagId}/${runId}@${minVersion}`),
    },
  };
}

test("queued runs start oldest logical date first while max_active_runs allows, each handed to the scheduler's evaluation", async () => {
  await seedDag("two", {
    paused: false,
    maxActiveRuns: 2,
    runs: [
      ["c", "03"],
      ["a", "01"],
      ["b", "02"],
    ],
  });
  const d = deps();
  expect(await startQueuedRuns(d.deps, "two")).toEqual(["a", "b"]);
  expect(d.evaluated).toEqual(["two/a@0", "two/b@0"]);
  expect(await runs("two")).toEqual({ a: "running@2", b: "running@2", c: "queued@1" });
  // Both slots taken: nothing more starts until a run ends.
  expect(await startQueuedRuns(d.deps, "two")).toEqual([]);
  await sql`update dag_run set state = 'success' where dag_id = 'two' and run_id = 'a'`.execute(tdb.db);
  expect(await startQueuedRuns(d.deps, "two")).toEqual(["c"]);
  expect(d.evaluated).toEqual(["two/a@0", "two/b@0", "two/c@0"]);
});

test("a paused DAG, an unknown DAG and a DAG with nothing queued start nothing", async () => {
  await seedDag("paused", { paused: true, maxActiveRuns: 16, runs: [["p", "01"]] });
  await seedDag("empty", { paused: false, maxActiveRuns: 16, runs: [] });
  const d = deps();
  expect(await startQueuedRuns(d.deps, "paused")).toEqual([]);
  expect(await startQueuedRuns(d.deps, "nope")).toEqual([]);
  expect(await startQueuedRuns(d.deps, "empty")).toEqual([]);
  expect(d.evaluated).toEqual([]);
  expect(await runs("paused")).toEqual({ p: "queued@1" });
});

test("a paused DAG starts only its runs marked run_while_paused, within max_active_runs, and stays paused", async () => {
  await seedDag("held", {
    paused: true,
    maxActiveRuns: 1,
    runs: [
      ["old", "01"],
      ["once", "02"],
      ["twice", "03"],
    ],
  });
  await sql`update dag_run set run_while_paused = true where dag_id = 'held' and run_id in ('once', 'twice')`.execute(tdb.db);
  const d = deps();
  expect(await startQueuedRuns(d.deps, "held")).toEqual(["once"]);
  // One slot: the second marked run waits for it; the unmarked older run waits for an unpause.
  expect(await startQueuedRuns(d.deps, "held")).toEqual([]);
  await sql`update dag_run set state = 'success' where dag_id = 'held' and run_id = 'once'`.execute(tdb.db);
  expect(await startQueuedRuns(d.deps, "held")).toEqual(["twice"]);
  expect(await runs("held")).toMatchObject({ old: "queued@1", once: "success@2", twice: "running@2" });
  expect((await tdb.db.selectFrom("dag").select("is_paused").where("dag_id", "=", "held").executeTakeFirstOrThrow()).is_paused).toBe(true);
});

/** Start one queued run of a new DAG with two task instances (one routed to a host); returns its primed read. */
async function startWithTasks(dagId: string): Promise<RunRead | undefined> {
  await seedDag(dagId, { paused: false, maxActiveRuns: 1, runs: [["r", "01"]] });
  await sql`update dag_run set conf = '{"k": [1, "two"]}' where dag_id = ${dagId}`.execute(tdb.db);
  await sql`insert into task_instance (dag_id, run_id, task_id, state, try_number, max_tries, operator, host)
    values (${dagId}, 'r', 'a', null, 0, 1, 'noop', null), (${dagId}, 'r', 'b', 'up_for_retry', 1, 2, 'noop', 'kvm-2')`.execute(tdb.db);
  let primed: RunRead | undefined;
  const d = deps();
  await startQueuedRuns({ ...d.deps, evaluate: async (dag, runId) => void (primed = takePrimedRead(dag, runId)) }, dagId);
  return primed;
}

test("a started run's first evaluation gets the run as its start returned it, the same as a read of it: no second read", async () => {
  const primed = await startWithTasks("primed");
  expect(primed).toBeDefined();
  expect(primed).toEqual(await readRun(tdb.db, "primed", "r", 0));
  expect(primed).toMatchObject({ state: "running", version: 2, conf: { k: [1, "two"] }, hosts: new Map([["b", "kvm-2"]]) });
  // Taken once: a later evaluation of the run reads it.
  expect(takePrimedRead("primed", "r")).toBeUndefined();
});

test("a primed read made stale by a write before its evaluation lands nothing: the evaluation reads the run again and decides", async () => {
  const primed = (await startWithTasks("stale-start"))!;
  await sql`update task_instance set state = 'success' where dag_id = 'stale-start'`.execute(tdb.db);
  await sql`update dag_run set version = version + 1 where dag_id = 'stale-start'`.execute(tdb.db);
  const d = deps();
  const result = await withPrimedRead(primed, () => evaluateRun(d.deps, "stale-start", "r"));
  // The stale read's decision misses the version guard; the fresh read's lands.
  expect(result).toEqual({ evaluated: true, queued: 0, runState: "success" });
  expect(await runs("stale-start")).toEqual({ r: "success@3" });
});

test("a started run's first evaluation makes one statement, the decision; without its start's read it makes two", async () => {
  let statements = 0;
  const counted = tdb.db.withPlugin({
    transformQuery: (a) => a.node,
    transformResult: async (a) => {
      statements++;
      return a.result;
    },
  });
  const d = { ...deps().deps, db: counted };
  const primed = (await startWithTasks("counted"))!;
  await runDefinition(tdb.db, "counted", "r", primed.dag_hash); // the definition cached, as in a running service
  await withPrimedRead(primed, () => evaluateRun(d, "counted", "r"));
  expect(statements).toBe(1);
  await startWithTasks("counted-2");
  statements = 0;
  await evaluateRun(d, "counted-2", "r");
  expect(statements).toBe(2);
});
