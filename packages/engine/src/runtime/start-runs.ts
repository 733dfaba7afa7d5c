import { sql } from "kysely";
import type { RuntimeDeps } from "./deps";
import { nowOf } from "./deps";
import { evaluateShared } from "./evaluate-run";

type StartDeps = Pick<RuntimeDeps, "db" | "queues" | "notifier" | "logger" | "clock" | "evaluate">;

/**
 * Move queued runs of an unpaused DAG to running, oldest logical date first, while
 * max_active_runs allows (svc_start_runs, migration 007: one statement, serialised per DAG by an
 * advisory lock; a call that finds nothing queued takes no lock), then evaluate each started run.
 */
export async function startQueuedRuns(deps: StartDeps, dagId: string): Promise<string[]> {
  const { rows } = await sql<{ run_id: string }>`select run_id from svc_start_runs(${dagId}, ${nowOf(deps)})`.execute(deps.db);
  const started = rows.map((r) => r.run_id);
  for (const runId of started) {
    deps.logger.info({ dagId, runId }, "run started");
    await evaluateShared(deps, dagId, runId);
  }
  return started;
}
