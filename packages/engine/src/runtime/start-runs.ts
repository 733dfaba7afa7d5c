import { sql } from "kysely";
import { runPrepared } from "@svc/db";
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
  const rows = await runPrepared(deps.db, sql<{ run_id: string }>`select run_id from svc_start_runs(${dagId}, ${nowOf(deps)})`);
  const started = rows.map((r) => r.run_id);
  for (const runId of started) deps.logger.info({ dagId, runId }, "run started");
  // A burst of triggers starts hundreds of runs in one call: evaluated one after another, the last
  // waited for every other's round trips (1,000 runs: seconds before its first task was queued).
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(START_EVALUATIONS, started.length) }, async () => {
      while (next < started.length) await evaluateShared(deps, dagId, started[next++]!);
    }),
  );
  return started;
}

/** Started runs evaluated at once by one call (below a service's pool of 10 connections). */
const START_EVALUATIONS = 6;
