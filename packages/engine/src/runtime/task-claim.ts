import os from "node:os";
import { sql } from "kysely";
import type { Db, TaskState } from "@svc/db";
import type { TaskJob } from "@svc/queue";

/**
 * Claim a queued try for this worker. At-least-once delivery means the same job can arrive twice
 * (stalled-job redelivery, reconciliation): only the first claim of a queued try wins.
 */
export async function claimTry(db: Db, job: TaskJob, workerId: string, now: Date, timeoutMs: number | null) {
  return db
    .updateTable("task_instance")
    .set({
      state: "running",
      start_date: now,
      end_date: null,
      duration: null,
      hostname: os.hostname(),
      pid: process.pid,
      worker_id: workerId,
      timeout_at: timeoutMs ? new Date(now.getTime() + timeoutMs) : null,
      error: null,
      updated_at: now,
    })
    .where("dag_id", "=", job.dagId).where("run_id", "=", job.runId).where("task_id", "=", job.taskId)
    .where("state", "=", "queued").where("try_number", "=", job.tryNumber)
    .returningAll()
    .executeTakeFirst();
}

export interface TryOutcome {
  state: Extract<TaskState, "success" | "failed" | "up_for_retry">;
  output?: unknown;
  error?: string;
  nextRetryAt?: Date;
}

/**
 * Commit a try's outcome, guarded by try number and worker: a try commits at most once, and a
 * worker that lost its claim (declared a zombie) cannot overwrite the newer try. Bumps the run
 * version in the same transaction; returns it (undefined when the guard rejected the commit).
 */
export async function commitTry(db: Db, job: TaskJob, workerId: string, now: Date, o: TryOutcome): Promise<number | undefined> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable("task_instance")
      .set({
        state: o.state,
        end_date: now,
        duration: sql`extract(epoch from (${now}::timestamptz - start_date))`,
        output: o.output === undefined ? null : JSON.stringify(o.output),
        error: o.error ?? null,
        next_retry_at: o.nextRetryAt ?? null,
        updated_at: now,
      })
      .where("dag_id", "=", job.dagId).where("run_id", "=", job.runId).where("task_id", "=", job.taskId)
      .where("state", "=", "running").where("try_number", "=", job.tryNumber).where("worker_id", "=", workerId)
      .returning("task_id")
      .executeTakeFirst();
    if (!row) return undefined;
    const run = await tx
      .updateTable("dag_run").set({ version: sql`version + 1`, updated_at: now })
      .where("dag_id", "=", job.dagId).where("run_id", "=", job.runId)
      .returning("version")
      .executeTakeFirst();
    return run?.version;
  });
}
