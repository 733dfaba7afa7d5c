import type { RuntimeDeps } from "./deps";
import { nowOf } from "./deps";
import { enqueueTasks } from "./enqueue";
import { jobsWithoutHash } from "./job-hashes";
import { evaluateShared } from "./evaluate-run";
import { startQueuedRuns } from "./start-runs";
import { reapZombies } from "./zombies";
import { triesOfRunningRuns } from "./running-tries";

export interface ReconcileReport {
  zombies: number;
  reenqueued: number;
  /** Running runs evaluated (most with one read: nothing to decide). */
  evaluated: number;
  startedRuns: number;
}

/** Queued tries younger than this may have their enqueue still in flight. */
const QUEUED_GRACE_MS = 1000;

/**
 * Rebuild what Redis may have lost from Postgres, the source of truth: re-enqueue queued tries
 * with no live job, re-evaluate runs with unevaluated changes or due retries, start runs that can
 * start, reap zombie tries. Safe to run at any time and from any scheduler.
 */
export async function reconcile(deps: RuntimeDeps): Promise<ReconcileReport> {
  const now = nowOf(deps);
  const report: ReconcileReport = { zombies: 0, reenqueued: 0, evaluated: 0, startedRuns: 0 };
  report.zombies = await reapZombies(deps);

  const queued = await triesOfRunningRuns(deps.db, "queued")
    .select(["ti.dag_id", "ti.run_id", "ti.task_id", "ti.try_number", "ti.host"])
    .where("ti.queued_at", "<", new Date(now.getTime() - QUEUED_GRACE_MS))
    .execute();
  const jobs = queued.map((ti) => ({ dagId: ti.dag_id, runId: ti.run_id, taskId: ti.task_id, tryNumber: ti.try_number, ...(ti.host ? { host: ti.host } : {}) }));
  const missing = await jobsWithoutHash(deps.queues, jobs);
  if (missing.length) {
    await enqueueTasks(deps.queues, missing);
    deps.logger.warn({ count: missing.length }, "re-enqueued queued tries that had no job");
  }
  report.reenqueued = missing.length;

  // Every running run: worker outcomes do not bump the run version, so a lost event leaves no trace
  // in the run row. Runs with nothing to decide cost one read-only pre-check.
  const runs = await deps.db.selectFrom("dag_run").select(["dag_id", "run_id"]).where("state", "=", "running").execute();
  for (const r of runs) {
    await evaluateShared(deps, r.dag_id, r.run_id);
    report.evaluated++;
  }

  const dagsWithQueued = await deps.db
    .selectFrom("dag_run as r")
    .innerJoin("dag as d", "d.dag_id", "r.dag_id")
    .select("r.dag_id")
    .distinct()
    .where("r.state", "=", "queued")
    .where((eb) => eb.or([eb("d.is_paused", "=", false), eb("r.run_while_paused", "=", true)]))
    .execute();
  for (const d of dagsWithQueued) report.startedRuns += (await startQueuedRuns(deps, d.dag_id)).length;
  return report;
}
