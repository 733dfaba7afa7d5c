import { sql } from "kysely";
import { runPrepared } from "@svc/db";
import type { RuntimeDeps } from "./deps";
import { nowOf } from "./deps";
import { evaluateShared } from "./evaluate-run";
import { withPrimedRead } from "./primed-read";
import { runFromRow, type RunRead, type TiTuple } from "./run-read";

type StartDeps = Pick<RuntimeDeps, "db" | "queues" | "notifier" | "logger" | "clock" | "evaluate">;

/**
 * Move queued runs of an unpaused DAG to running, oldest logical date first, while
 * max_active_runs allows (svc_start_runs, packages/engine-sql/sql: one statement, serialised per DAG by an
 * advisory lock; a call that finds nothing queued takes no lock), then evaluate each started run
 * from the row and task instances the start returned (migration 016).
 */
export async function startQueuedRuns(deps: StartDeps, dagId: string): Promise<string[]> {
  const rows = await runPrepared(
    deps.db,
    sql<StartedRow>`select run_id, r_id as id, r_conf as conf, r_logical_date as logical_date, r_dag_hash as dag_hash,
      r_version as version, r_evaluated_version as evaluated_version, r_tis as tis from svc_start_runs(${dagId}, ${nowOf(deps)})`,
  );
  const started = rows.map((r) => runFromRow({ ...r, dag_id: dagId, state: "running" }));
  for (const run of started) deps.logger.info({ dagId, runId: run.run_id }, "run started");
  // A burst of triggers starts hundreds of runs in one call: evaluated one after another, the last
  // waited for every other's round trips (1,000 runs: seconds before its first task was queued).
  // Each first evaluation decides from the run as its start returned it (no second read).
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(START_EVALUATIONS, started.length) }, async () => {
      while (next < started.length) {
        const run = started[next++]!;
        await withPrimedRead(run, () => evaluateShared(deps, dagId, run.run_id));
      }
    }),
  );
  return started.map((r) => r.run_id);
}

type StartedRow = Omit<RunRead, "tis" | "hosts" | "dag_id" | "state"> & { tis: TiTuple[] };

/** Started runs evaluated at once by one call (below a service's pool of 10 connections). */
const START_EVALUATIONS = 6;
