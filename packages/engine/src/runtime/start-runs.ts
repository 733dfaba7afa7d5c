import { sql } from "kysely";
import type { RuntimeDeps } from "./deps";
import { nowOf } from "./deps";
import { evaluateRun } from "./evaluate-run";

type StartDeps = Pick<RuntimeDeps, "db" | "queues" | "notifier" | "logger" | "clock">;

/**
 * Move queued runs of an unpaused DAG to running, oldest logical date first, while
 * max_active_runs allows. Serialised per DAG with a transaction-scoped advisory lock.
 */
export async function startQueuedRuns(deps: StartDeps, dagId: string): Promise<string[]> {
  const now = nowOf(deps);
  // Most events find nothing to start (every run's end sends one, and one pass starts the runs of a
  // burst of triggers): one read instead of a locked transaction. A run queued after this read
  // sends its own event.
  const anyQueued = await deps.db.selectFrom("dag_run").select("id").where("dag_id", "=", dagId).where("state", "=", "queued").limit(1).executeTakeFirst();
  if (!anyQueued) return [];
  const started = await deps.db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${"svc-dag:" + dagId}))`.execute(tx);
    const dag = await tx.selectFrom("dag").select(["is_paused", "is_active", "max_active_runs"]).where("dag_id", "=", dagId).executeTakeFirst();
    if (!dag || dag.is_paused) return [];
    const running = await tx.selectFrom("dag_run").select(sql<number>`count(*)::int`.as("n")).where("dag_id", "=", dagId).where("state", "=", "running").executeTakeFirstOrThrow();
    const slots = dag.max_active_runs - running.n;
    if (slots <= 0) return [];
    const queued = await tx
      .selectFrom("dag_run").select(["id", "run_id"])
      .where("dag_id", "=", dagId).where("state", "=", "queued")
      .orderBy("logical_date").orderBy("id").limit(slots)
      .execute();
    if (!queued.length) return [];
    await tx
      .updateTable("dag_run")
      .set({ state: "running", start_date: sql`coalesce(start_date, ${now})`, end_date: null, updated_at: now, version: sql`version + 1` })
      .where("id", "in", queued.map((q) => q.id))
      .execute();
    return queued.map((q) => q.run_id);
  });
  for (const runId of started) {
    deps.logger.info({ dagId, runId }, "run started");
    await evaluateRun(deps, dagId, runId);
  }
  return started;
}
