import { sql, type Transaction } from "kysely";
import type { DagDefinition } from "@svc/dags";
import type { Database, DagRunRow, Db } from "@svc/db";
import { DagRunNotFoundError } from "@svc/errors";
import type { Notifier } from "../notifier";

export type Tx = Transaction<Database>;

/** What a write to one run leaves for after commit: the new version, and whether the run went back to queued. */
export interface RunWrite {
  dagId: string;
  runId: string;
  version: number;
  requeued: boolean;
  ended: boolean;
}

/** Lock the run row first (the scheduler locks it the same way), so writes to one run serialise. */
export async function lockRun(tx: Tx, dagId: string, runId: string): Promise<DagRunRow> {
  const run = await tx.selectFrom("dag_run").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).forUpdate().executeTakeFirst();
  if (!run) throw new DagRunNotFoundError(dagId, runId);
  return run;
}

/** Bump the run version (the scheduler evaluates each version once); returns the new one. */
export async function bumpVersion(tx: Tx, runPk: number, set: Record<string, unknown> = {}): Promise<number> {
  const row = await tx
    .updateTable("dag_run")
    .set({ ...set, version: sql`version + 1`, updated_at: new Date() })
    .where("id", "=", runPk)
    .returning("version")
    .executeTakeFirstOrThrow();
  return row.version;
}

/**
 * Clear task instances of a locked run: state none, try number kept (the scheduler increments it on
 * the next try), max_tries = try_number + retries, try bookkeeping reset. A finished run goes back to
 * queued. Caller commits, then calls `notifyRunWrite`.
 */
export async function clearInRun(tx: Tx, run: DagRunRow, taskIds: string[]): Promise<RunWrite> {
  const def = run.definition as DagDefinition;
  const retries = new Map(def.tasks.map((t) => [t.task_id, t.retries]));
  const now = new Date();
  for (const taskId of taskIds) {
    await tx
      .updateTable("task_instance")
      .set({
        state: null,
        max_tries: sql`try_number + ${retries.get(taskId) ?? 0}`,
        end_date: null,
        duration: null,
        next_retry_at: null,
        worker_id: null,
        timeout_at: null,
        pid: null,
        updated_at: now,
      })
      .where("dag_id", "=", run.dag_id)
      .where("run_id", "=", run.run_id)
      .where("task_id", "=", taskId)
      .execute();
  }
  const finished = run.state === "success" || run.state === "failed";
  const version = await bumpVersion(tx, run.id, finished ? { state: "queued", end_date: null, start_date: null, last_scheduling_decision: null, queued_at: now } : {});
  return { dagId: run.dag_id, runId: run.run_id, version, requeued: finished, ended: false };
}

/** After commit: tell the scheduler about each written run (and the DAG, when a run may start or has ended). */
export async function notifyRunWrites(notifier: Notifier, writes: RunWrite[]): Promise<void> {
  const dags = new Set<string>();
  for (const w of writes) {
    await notifier.runChanged(w.dagId, w.runId, w.version);
    if (w.requeued || w.ended) dags.add(w.dagId);
  }
  for (const d of dags) await notifier.dagChanged(d);
}

/** Run a write transaction over one run and notify after commit. */
export async function writeRun<T>(db: Db, notifier: Notifier, fn: (tx: Tx) => Promise<{ result: T; writes: RunWrite[] }>): Promise<T> {
  const { result, writes } = await db.transaction().execute(fn);
  await notifyRunWrites(notifier, writes);
  return result;
}
