import os from "node:os";
import { sql } from "kysely";
import type { Db, TaskState } from "@svc/db";
import type { TaskJob } from "@svc/queue";
import type { LogLine } from "./log-writer";

/** A claimed try with what the worker needs from its run (fetched in the same statement). */
export interface ClaimedTry {
  max_tries: number;
  hostname: string;
  dag_id: string;
  run_id: string;
  dag_hash: string;
  conf: Record<string, unknown>;
  logical_date: Date;
}

/**
 * Claim a queued try for this worker. At-least-once delivery means the same job can arrive twice
 * (stalled-job redelivery, reconciliation): only the first claim of a queued try wins.
 */
export async function claimTry(db: Db, job: TaskJob, workerId: string, now: Date): Promise<ClaimedTry | undefined> {
  const r = await sql<ClaimedTry>`
    update task_instance ti set
      state = 'running', start_date = ${now}, end_date = null, duration = null, hostname = ${os.hostname()},
      pid = ${process.pid}, worker_id = ${workerId}, error = null, updated_at = ${now}
    from dag_run r
    where ti.dag_id = ${job.dagId} and ti.run_id = ${job.runId} and ti.task_id = ${job.taskId}
      and ti.state = 'queued' and ti.try_number = ${job.tryNumber}
      and r.dag_id = ti.dag_id and r.run_id = ti.run_id
    returning ti.max_tries, ti.hostname, r.dag_id, r.run_id, r.dag_hash, r.conf, r.logical_date`.execute(db);
  return r.rows[0];
}

export interface TryOutcome {
  state: Extract<TaskState, "success" | "failed" | "up_for_retry">;
  output?: unknown;
  error?: string;
  nextRetryAt?: Date;
}

/**
 * Commit a try's outcome, guarded by try number and worker: a try commits at most once, and a
 * worker that lost its claim (declared a zombie) cannot overwrite the newer try. The run row is not
 * touched, so the commits of a wide run's tasks never queue behind one another on it. Returns
 * whether the guard let the commit through.
 */
export async function commitTry(db: Db, job: TaskJob, workerId: string, now: Date, o: TryOutcome, logs: LogLine[] = []): Promise<boolean> {
  // One statement (one round trip, one implicit transaction): the try's last log lines and the
  // guarded task update commit together.
  const r = await sql<{ task_id: string }>`
    with logs as (
      insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
      select ${job.dagId}, ${job.runId}, ${job.taskId}, ${job.tryNumber}, x.stream, x.line
      from rows from (jsonb_to_recordset(${JSON.stringify(logs)}::jsonb) as (stream text, line text)) with ordinality as x(stream, line, n)
      order by x.n
    )
    update task_instance set
      state = ${o.state}, end_date = ${now}, duration = extract(epoch from (${now}::timestamptz - start_date)),
      output = ${o.output === undefined ? null : JSON.stringify(o.output)}::jsonb, error = ${o.error ?? null},
      next_retry_at = ${o.nextRetryAt ?? null}, updated_at = ${now}
    where dag_id = ${job.dagId} and run_id = ${job.runId} and task_id = ${job.taskId}
      and state = 'running' and try_number = ${job.tryNumber} and worker_id = ${workerId}
    returning task_id`.execute(db);
  return r.rows.length > 0;
}
