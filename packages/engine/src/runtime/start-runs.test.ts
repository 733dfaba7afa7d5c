import { sql } from "kysely";
import { silentLogger } from "@svc/logger";
import type { Queues } from "@svc/queue";
import { createTestDb, type TestDb } from "@svc/testing";
import { nullNotifier } from "../notifier";
import { startQueuedRuns } from "./start-runs";

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
