import { sql } from "kysely";
import type { Db } from "@svc/db";
import type { TaskJob } from "@svc/queue";
import type { LogLine } from "./log-writer";

export interface RequeueRequest {
  key: Pick<TaskJob, "dagId" | "runId" | "taskId" | "tryNumber">;
  /** Retry at once (up_for_retry, one more try granted) or give up (failed). */
  retry: boolean;
  /** Lost worker (counted against the zombie limit) or a worker handing the try back on shutdown (not counted). */
  zombie: boolean;
  /**
   * The task's operator is resumable: with `retry`, the same try runs again (up_for_reschedule, due
   * now) instead of a new one, so it finds what it started (a triggered run) by its try number.
   */
  resume?: boolean;
  /** Only while the try is still this worker's (a hand-back); the zombie reaper takes any running try. */
  workerId?: string;
  error: string;
  /** The system line that closes the try's log. */
  line: string;
  /** Lines of the try not yet written, written before `line`. */
  logs?: LogLine[];
}

/**
 * Close a running try without consuming one of the task's retries: the try ends up_for_retry with
 * `next_retry_at = now` and one more try granted (`max_tries + 1`), so another worker runs the task
 * at once; a resumable operator's try ends up_for_reschedule, due now, and runs again as it is. Guarded by state and try number (and worker, for a hand-back): a try that was closed
 * meanwhile is left alone. Returns the run's new version, or undefined when nothing changed.
 */
export async function requeueTry(db: Db, now: Date, r: RequeueRequest): Promise<number | undefined> {
  const k = { dag_id: r.key.dagId, run_id: r.key.runId, task_id: r.key.taskId, try_number: r.key.tryNumber };
  return db.transaction().execute(async (tx) => {
    let update = tx
      .updateTable("task_instance")
      .set({
        state: r.retry ? (r.resume ? "up_for_reschedule" : "up_for_retry") : "failed",
        end_date: now,
        next_retry_at: r.retry ? now : null,
        max_tries: r.retry && !r.resume ? sql`max_tries + 1` : sql`max_tries`,
        zombie_count: r.zombie ? sql`zombie_count + 1` : sql`zombie_count`,
        error: r.error,
        updated_at: now,
      })
      .where("dag_id", "=", k.dag_id)
      .where("run_id", "=", k.run_id)
      .where("task_id", "=", k.task_id)
      .where("state", "=", "running")
      .where("try_number", "=", k.try_number);
    if (r.workerId !== undefined) update = update.where("worker_id", "=", r.workerId);
    const row = await update.returning("task_id").executeTakeFirst();
    if (!row) return undefined;
    const lines = [...(r.logs ?? []), { stream: "system" as const, line: r.line }];
    await tx
      .insertInto("task_log")
      .values(lines.map((l) => ({ ...k, stream: l.stream, line: l.line })))
      .execute();
    const run = await tx
      .updateTable("dag_run")
      .set({ version: sql`version + 1` })
      .where("dag_id", "=", k.dag_id)
      .where("run_id", "=", k.run_id)
      .returning("version")
      .executeTakeFirst();
    return run?.version;
  });
}

/** The reason a worker's running tries are aborted when its stop's grace runs out: they are handed back. */
export class WorkerStoppingError extends Error {
  constructor(readonly workerId: string) {
    super(`worker ${workerId} shutting down`);
    this.name = "WorkerStoppingError";
  }
}

/** Hand a try this worker was running back on shutdown: closed with a log line, queued again at once. */
export function handBackTry(db: Db, now: Date, key: RequeueRequest["key"], workerId: string, logs: LogLine[], resume = false): Promise<boolean> {
  return requeueTry(db, now, {
    key,
    retry: true,
    zombie: false,
    resume,
    workerId,
    error: `handed back by worker ${workerId} on shutdown`,
    line: `handed back by worker ${workerId} on shutdown; queued again at once for another worker, ${resume ? "as the same try" : "without using one of the task's retries"}`,
    logs,
  }).then((version) => version !== undefined);
}

/**
 * Put a kept hop (migration 018) back to queued if a round claimed it for this worker but the reply
 * was lost (the commit was retried without the keep): nobody here runs it, and a live worker's
 * tries are never reaped. Guarded by task, state and worker. Returns the tries to enqueue again.
 */
export async function releaseKept(db: Db, now: Date, run: Pick<TaskJob, "dagId" | "runId">, taskId: string, workerId: string): Promise<TaskJob[]> {
  const rows = await db
    .updateTable("task_instance")
    .set({ state: "queued", worker_id: null, start_date: null, hostname: "", pid: null, queued_at: now, updated_at: now })
    .where("dag_id", "=", run.dagId)
    .where("run_id", "=", run.runId)
    .where("task_id", "=", taskId)
    .where("map_index", "=", -1)
    .where("state", "=", "running")
    .where("worker_id", "=", workerId)
    .returning(["try_number", "host"])
    .execute();
  return rows.map((r) => ({ dagId: run.dagId, runId: run.runId, taskId, tryNumber: r.try_number, ...(r.host ? { host: r.host } : {}) }));
}
