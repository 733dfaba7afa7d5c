import os from "node:os";
import { CompiledQuery } from "kysely";
import type { Db, TaskState } from "@svc/db";
import type { TaskJob } from "@svc/queue";
import type { LogLine } from "./log-writer";
import { runFromRow, type RunRead, type TiTuple } from "./run-read";

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

export interface TryOutcome {
  state: Extract<TaskState, "success" | "failed" | "up_for_retry" | "up_for_reschedule">;
  output?: unknown;
  error?: string;
  nextRetryAt?: Date;
}

export interface ClaimRequest {
  job: TaskJob;
  workerId: string;
}

export interface CommitRequest {
  job: TaskJob;
  workerId: string;
  outcome: TryOutcome;
  logs: LogLine[];
  /** Downstream tasks to queue if this commit lands a success (plain hops: see TaskFacts.hops). */
  hops?: string[];
  /** One of `hops` for the round to claim for this worker instead of queueing it (migration 018). */
  keep?: string;
}

/** The successful outcome of a try of an instant operator, run before any claim (see svc_try_ops). */
export interface FinishRequest {
  job: TaskJob;
  workerId: string;
  /** The instant operator that ran: the finish lands only if the task instance has it. */
  operator: string;
  started: Date;
  output: unknown;
  /** The try's log lines: written only if the finish lands. */
  logs: LogLine[];
  /** Downstream tasks to queue if the finish lands (plain hops: see TaskFacts.hops). */
  hops?: string[];
  /** One of `hops` for the round to claim for this worker instead of queueing it (migration 018). */
  keep?: string;
}

/** A downstream try queued in the round that landed its upstream's success (svc_try_ops's 'q' rows). */
export interface HopQueued {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  /** The hypervisor host its tries are routed to, if any. */
  host: string | null;
  /** The kept hop, claimed for the request's worker by the same round (a 'Q' row): run it, do not enqueue it. */
  claimed?: ClaimedTry;
}

/** Everything the workers of one process ask of the database in one tick. */
export interface TryOps {
  claims: ClaimRequest[];
  commits: CommitRequest[];
  finishes?: FinishRequest[];
  /** Runs to check for unfinished tasks (asked after an earlier commit of theirs). */
  openChecks: Pick<TaskJob, "dagId" | "runId">[];
}

export interface TryOpsResult {
  /** Per claim request: the claimed try, or undefined (not queued at that try: duplicate delivery). */
  claimed: (ClaimedTry | undefined)[];
  /** Per commit request: whether it committed (guarded by state, try and worker). */
  committed: boolean[];
  /** Per finish request: whether it landed (the try was still queued at that try number). */
  finished: boolean[];
  /** Per open check: whether the run still has unfinished tasks. */
  open: boolean[];
  /** Per open check of a run without unfinished tasks: the run as an evaluation reads it (migration 017). */
  reads: (RunRead | undefined)[];
  /** Downstream tries queued by this round's landed successes (their hops). */
  queued: HopQueued[];
}

const HOSTNAME = os.hostname();

// Keys joined with NUL, which Postgres text (and so no id) can hold: unambiguous and cheap.
export const tryKey = (j: Pick<TaskJob, "dagId" | "runId" | "taskId" | "tryNumber">) => `${j.dagId}\u0000${j.runId}\u0000${j.taskId}\u0000${j.tryNumber}`;
export const runKey = (j: Pick<TaskJob, "dagId" | "runId">) => `${j.dagId}\u0000${j.runId}`;

export type TryOpsRow = { k: "c" | "k" | "F" | "o" | "q" | "Q" | "r"; dag_id: string; run_id: string; task_id: string; try_number: number } & Partial<ClaimedTry>;

/**
 * One round trip for a tick's claims, outcome commits (with their last log lines), finishes of
 * instant tries and open-run checks: the database function svc_try_ops (packages/engine-sql/sql/svc_try_ops.sql)
 * reaches each row by its full key. Rows out: 'c' claimed, 'k' committed, 'F' a finish that did
 * not land, 'o' a run with unfinished tasks, 'q' a downstream try queued by a landed success (a
 * plain hop, migration 015: its host in `hostname`), 'Q' a kept hop claimed for the request's worker
 * (migration 018: the claim's columns), 'r' a checked run without unfinished tasks,
 * read for its evaluation (migration 017: the run's fields and task instances in `conf`).
 * Parameters: $1 now, $2 hostname, $3 pid, $4 claims, $5 log lines, $6 outcomes, $7 runs to check,
 * $8 finishes of instant tries.
 */
export const TRY_OPS_SQL = "select * from svc_try_ops($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb)";

/** Runs TRY_OPS_SQL with its parameters and returns the rows (kysely, or a pool's prepared statement). */
export type TryOpsExecutor = (values: unknown[]) => Promise<TryOpsRow[]>;

/** An executor over a Kysely database (one-off calls; the worker uses a prepared statement). */
export const kyselyTryOps =
  (db: Db): TryOpsExecutor =>
  async (values) =>
    (await db.executeQuery<TryOpsRow>(CompiledQuery.raw(TRY_OPS_SQL, values))).rows;

type RowKey = { dag_id: string; run_id: string; task_id: string };
const byRowKey = (a: RowKey, b: RowKey) =>
  a.dag_id < b.dag_id ? -1 : a.dag_id > b.dag_id ? 1 : a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0;

export async function runTryOps(exec: TryOpsExecutor | Db, ops: TryOps, now: Date): Promise<TryOpsResult> {
  const claims = ops.claims.map((r) => ({ dag_id: r.job.dagId, run_id: r.job.runId, task_id: r.job.taskId, try_number: r.job.tryNumber, worker_id: r.workerId }));
  const commits = ops.commits.map((r) => ({
    dag_id: r.job.dagId,
    run_id: r.job.runId,
    task_id: r.job.taskId,
    try_number: r.job.tryNumber,
    worker_id: r.workerId,
    state: r.outcome.state,
    output: r.outcome.output === undefined ? null : r.outcome.output,
    error: r.outcome.error ?? null,
    next_retry_at: r.outcome.nextRetryAt?.toISOString() ?? null,
    hops: r.hops?.length ? r.hops : null,
    keep: r.keep ?? null,
  }));
  // A job delivered twice in one round: only the first request is sent (and may land). Sorted by
  // key, joined with NUL (below any character of an id): the same order as byRowKey.
  const fins = (ops.finishes ?? []).map((r) => ({ r, key: tryKey(r.job) }));
  const finishKeys = new Set<string>();
  const sentFinish = fins.map((f) => !finishKeys.has(f.key) && !!finishKeys.add(f.key));
  const finishes = fins
    .filter((_, i) => sentFinish[i])
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ r }) => ({
      dag_id: r.job.dagId,
      run_id: r.job.runId,
      task_id: r.job.taskId,
      try_number: r.job.tryNumber,
      worker_id: r.workerId,
      operator: r.operator,
      started: r.started.toISOString(),
      output: r.output === undefined ? null : r.output,
      lines: r.logs.length ? r.logs : undefined,
      hops: r.hops?.length ? r.hops : undefined,
      keep: r.keep,
    }));
  const logs = ops.commits.flatMap((r) =>
    r.logs.map((l) => ({ dag_id: r.job.dagId, run_id: r.job.runId, task_id: r.job.taskId, try_number: r.job.tryNumber, stream: l.stream, line: l.line })),
  );
  const checks = [...new Map(ops.openChecks.map((j) => [runKey(j), { dag_id: j.dagId, run_id: j.runId }])).values()];
  // One lock order for every round: two rounds touching the same rows cannot deadlock.
  claims.sort(byRowKey);
  commits.sort(byRowKey);
  const run = typeof exec === "function" ? exec : kyselyTryOps(exec);
  const rows = await run([now, HOSTNAME, process.pid, JSON.stringify(claims), JSON.stringify(logs), JSON.stringify(commits), JSON.stringify(checks), JSON.stringify(finishes)]);

  const claimedBy = new Map<string, ClaimedTry>();
  const committedKeys = new Set<string>();
  const unfinishedKeys = new Set<string>();
  const openRuns = new Set<string>();
  const closedReads = new Map<string, RunRead>();
  const queued: HopQueued[] = [];
  for (const r of rows) {
    const key = { dagId: r.dag_id, runId: r.run_id, taskId: r.task_id, tryNumber: r.try_number };
    if (r.k === "c") claimedBy.set(tryKey(key), claimOf(r));
    else if (r.k === "k") committedKeys.add(tryKey(key));
    else if (r.k === "F") unfinishedKeys.add(tryKey(key));
    else if (r.k === "q") queued.push({ ...key, host: r.hostname ?? null });
    else if (r.k === "Q") queued.push({ ...key, host: null, claimed: claimOf(r) });
    else if (r.k === "r") closedReads.set(runKey(key), closedRead(r));
    else openRuns.add(runKey(key));
  }
  return {
    // A job delivered twice in one batch: only the first request gets the claim.
    claimed: ops.claims.map((r) => {
      const c = claimedBy.get(tryKey(r.job));
      claimedBy.delete(tryKey(r.job));
      return c;
    }),
    committed: ops.commits.map((r) => committedKeys.has(tryKey(r.job))),
    finished: fins.map((f, i) => sentFinish[i]! && !unfinishedKeys.has(f.key)),
    open: ops.openChecks.map((j) => openRuns.has(runKey(j))),
    reads: ops.openChecks.map((j) => closedReads.get(runKey(j))),
    queued,
  };
}

/** A 'c' or 'Q' row → the claimed try it carries. */
const claimOf = (r: TryOpsRow): ClaimedTry => ({
  max_tries: r.max_tries!,
  hostname: r.hostname!,
  dag_id: r.dag_id,
  run_id: r.run_id,
  dag_hash: r.dag_hash!,
  conf: r.conf!,
  logical_date: r.logical_date!,
});

type ClosedRunFields = Pick<RunRead, "id" | "state" | "conf" | "version" | "evaluated_version"> & { tis: TiTuple[] };

/** An 'r' row → the run read it carries. */
function closedRead(r: TryOpsRow): RunRead {
  const { tis, ...fields } = r.conf as unknown as ClosedRunFields;
  return runFromRow({ ...fields, dag_id: r.dag_id, run_id: r.run_id, dag_hash: r.dag_hash!, logical_date: r.logical_date!, tis });
}
