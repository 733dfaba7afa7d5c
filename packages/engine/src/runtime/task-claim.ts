import os from "node:os";
import { sql } from "kysely";
import type { Db, TaskState } from "@svc/db";
import type { TaskJob } from "@svc/queue";
import type { LogLine } from "./log-writer";
import { microBatch } from "./micro-batch";

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

const keyOf = (j: Pick<TaskJob, "dagId" | "runId" | "taskId" | "tryNumber">) => JSON.stringify([j.dagId, j.runId, j.taskId, j.tryNumber]);

/**
 * Claim queued tries, one statement for the batch. At-least-once delivery means the same job can
 * arrive twice (stalled-job redelivery, reconciliation): only the first claim of a queued try wins.
 * Returns, per request, the claimed try or undefined.
 */
export async function claimTries(db: Db, reqs: { job: TaskJob; workerId: string }[], now: Date): Promise<(ClaimedTry | undefined)[]> {
  const rows = reqs.map((r) => ({ dag_id: r.job.dagId, run_id: r.job.runId, task_id: r.job.taskId, try_number: r.job.tryNumber, worker_id: r.workerId }));
  const res = await sql<ClaimedTry & { task_id: string; try_number: number }>`
    update task_instance ti set
      state = 'running', start_date = ${now}, end_date = null, duration = null, hostname = ${os.hostname()},
      pid = ${process.pid}, worker_id = x.worker_id, error = null, updated_at = ${now}
    from dag_run r, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(dag_id text, run_id text, task_id text, try_number int, worker_id text)
    where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id
      and ti.state = 'queued' and ti.try_number = x.try_number
      and r.dag_id = ti.dag_id and r.run_id = ti.run_id
    returning ti.max_tries, ti.hostname, ti.task_id, ti.try_number, r.dag_id, r.run_id, r.dag_hash, r.conf, r.logical_date`.execute(db);
  const byKey = new Map(res.rows.map((c) => [keyOf({ dagId: c.dag_id, runId: c.run_id, taskId: c.task_id, tryNumber: c.try_number }), c]));
  // A job delivered twice in one batch: only the first request gets the claim.
  return reqs.map((r) => {
    const k = keyOf(r.job);
    const c = byKey.get(k);
    byKey.delete(k);
    return c;
  });
}

/** Claim one queued try for this worker (see claimTries). */
export async function claimTry(db: Db, job: TaskJob, workerId: string, now: Date): Promise<ClaimedTry | undefined> {
  return (await claimTries(db, [{ job, workerId }], now))[0];
}

export interface TryOutcome {
  state: Extract<TaskState, "success" | "failed" | "up_for_retry">;
  output?: unknown;
  error?: string;
  nextRetryAt?: Date;
}

export interface CommitRequest {
  job: TaskJob;
  workerId: string;
  outcome: TryOutcome;
  logs: LogLine[];
}

/**
 * Commit tries' outcomes, one statement for the batch, each guarded by try number and worker: a try
 * commits at most once, and a worker that lost its claim (declared a zombie) cannot overwrite the
 * newer try. The last log lines go in with the outcome. The run row is not touched, so the commits
 * of a wide run's tasks never queue behind one another on it. Returns, per request, whether it
 * committed.
 */
export async function commitTries(db: Db, reqs: CommitRequest[], now: Date): Promise<boolean[]> {
  const outcomes = reqs.map((r) => ({
    dag_id: r.job.dagId, run_id: r.job.runId, task_id: r.job.taskId, try_number: r.job.tryNumber, worker_id: r.workerId,
    state: r.outcome.state, output: r.outcome.output === undefined ? null : r.outcome.output, error: r.outcome.error ?? null,
    next_retry_at: r.outcome.nextRetryAt?.toISOString() ?? null,
  }));
  const logs = reqs.flatMap((r) => r.logs.map((l) => ({ dag_id: r.job.dagId, run_id: r.job.runId, task_id: r.job.taskId, try_number: r.job.tryNumber, stream: l.stream, line: l.line })));
  const res = await sql<{ dag_id: string; run_id: string; task_id: string; try_number: number }>`
    with logs as (
      insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
      select x.dag_id, x.run_id, x.task_id, x.try_number, x.stream, x.line
      from rows from (jsonb_to_recordset(${JSON.stringify(logs)}::jsonb) as (dag_id text, run_id text, task_id text, try_number int, stream text, line text)) with ordinality as x(dag_id, run_id, task_id, try_number, stream, line, n)
      order by x.n
    )
    update task_instance ti set
      state = x.state, end_date = ${now}, duration = extract(epoch from (${now}::timestamptz - ti.start_date)),
      output = x.output, error = x.error, next_retry_at = x.next_retry_at, updated_at = ${now}
    from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as x(dag_id text, run_id text, task_id text, try_number int, worker_id text, state text, output jsonb, error text, next_retry_at timestamptz)
    where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id
      and ti.state = 'running' and ti.try_number = x.try_number and ti.worker_id = x.worker_id
    returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number`.execute(db);
  const done = new Set(res.rows.map((c) => keyOf({ dagId: c.dag_id, runId: c.run_id, taskId: c.task_id, tryNumber: c.try_number })));
  return reqs.map((r) => done.has(keyOf(r.job)));
}

/** Commit one try's outcome (see commitTries). */
export async function commitTry(db: Db, job: TaskJob, workerId: string, now: Date, o: TryOutcome, logs: LogLine[] = []): Promise<boolean> {
  return (await commitTries(db, [{ job, workerId, outcome: o, logs }], now))[0]!;
}

/** Claims and commits of concurrent tries batched per database pool (one statement per tick). */
export interface TryBatcher {
  claim(job: TaskJob, workerId: string): Promise<ClaimedTry | undefined>;
  commit(req: CommitRequest): Promise<boolean>;
}

const batchers = new WeakMap<Db, TryBatcher>();

export function tryBatcher(db: Db, now: () => Date = () => new Date()): TryBatcher {
  let b = batchers.get(db);
  if (!b) {
    b = {
      claim: ((f) => (job: TaskJob, workerId: string) => f({ job, workerId }))(microBatch((reqs: { job: TaskJob; workerId: string }[]) => claimTries(db, reqs, now()))),
      commit: microBatch((reqs: CommitRequest[]) => commitTries(db, reqs, now())),
    };
    batchers.set(db, b);
  }
  return b;
}
