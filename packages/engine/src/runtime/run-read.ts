import { sql } from "kysely";
import { runPrepared, type Db, type TaskState } from "@svc/db";
import type { RunDecision, TiView } from "../core/decide";

/** What an evaluation reads of a run, in one statement and without locks. */
export interface RunRead {
  id: number;
  dag_id: string;
  run_id: string;
  state: string;
  conf: Record<string, unknown>;
  logical_date: Date;
  dag_hash: string;
  version: number;
  evaluated_version: number;
  /**
   * The run's task instances; undefined when no decision can change: nothing waits to start
   * (no task without a state, up for retry or for reschedule) while some task is still unfinished. Wide runs
   * get such events often, and the rows of their thousand tasks need not travel for them.
   */
  tis?: TiView[];
  /** The host each routed task's tries go to (task_instance.host), read with tis. */
  hosts?: Map<string, string>;
}

const INT4_MAX = 2147483647;

export type TiTuple = [string, TaskState | null, number, string | null, string | null];

/**
 * Read a run for evaluation: the run row, and its task instances as one JSON array (cheaper to
 * send and parse than a row per task), only when a decision could change. The task instances are
 * read only for a running run not yet evaluated at `minVersion`.
 */
export async function readRun(db: Db, dagId: string, runId: string, minVersion: number): Promise<RunRead | undefined> {
  const rows = await runPrepared(
    db,
    sql<Omit<RunRead, "tis"> & { tis: TiTuple[] | null }>`
    select r.id, r.dag_id, r.run_id, r.state, r.conf, r.logical_date, r.dag_hash, r.version, r.evaluated_version,
      case when r.state = 'running' and r.evaluated_version < ${Math.min(minVersion || INT4_MAX, INT4_MAX)}
        and (c.waiting > 0 or c.unfinished = 0) then
        (select coalesce(json_agg(json_build_array(t.task_id, t.state, t.try_number, t.next_retry_at, t.host)), '[]')
         from task_instance t where t.dag_id = r.dag_id and t.run_id = r.run_id) end as tis
    from dag_run r
    cross join lateral (
      select count(*) filter (where t.state is null or t.state in ('up_for_retry', 'up_for_reschedule')) as waiting,
        count(*) filter (where t.state is null or t.state not in ('success', 'failed', 'skipped', 'upstream_failed')) as unfinished
      from task_instance t where t.dag_id = r.dag_id and t.run_id = r.run_id) c
    where r.dag_id = ${dagId} and r.run_id = ${runId}`,
  );
  return rows[0] && runFromRow(rows[0]);
}

/** A run read as the database sends it (task instances as tuples) → what an evaluation decides on. */
export function runFromRow(row: Omit<RunRead, "tis" | "hosts"> & { tis: TiTuple[] | null }): RunRead {
  const { tis, ...run } = row;
  let hosts: Map<string, string> | undefined;
  const views = tis?.map(([task_id, state, try_number, next, host]) => {
    if (host !== null) (hosts ??= new Map()).set(task_id, host);
    return { task_id, state, try_number, next_retry_at: next === null ? null : new Date(next) };
  });
  return { ...run, tis: views, ...(hosts ? { hosts } : {}) };
}

/** A decision that landed: the tries it queued, and for a run it ended, whether its DAG has queued runs. */
export interface AppliedDecision {
  queued: RunDecision["queue"];
  /** Only for a decision that ends the run: a queued run of the DAG may start in the slot it frees. */
  dagHasQueuedRuns: boolean;
}

/**
 * Apply a decision in one statement (svc_apply_decision, packages/engine-sql/sql): lands only while the
 * run is running at the version read; returns the queued tries that landed, or undefined when the
 * read was stale (re-read and decide again). A decision that ends the run also asks, in the same
 * statement, whether the DAG has a queued run (the freed slot matters only then), instead of a
 * second round trip after it.
 *
 * Its commit does not wait for the disk (synchronous_commit off for this transaction only): a
 * decision is a pure function of what is durable already (the tries' outcomes, committed
 * synchronously, and the run's definition), so a database crash that loses it loses nothing a new
 * evaluation cannot make again, and reconciliation makes it. Nothing can act on it durably first:
 * the WAL is flushed in order, so the next synchronous commit (a try's claim or instant finish, an
 * API write) makes it durable before its own. A dependency hop waits for one disk flush (the
 * finish) instead of two. Call it on its own (autocommit, as evaluateRun does): inside a
 * transaction the setting would cover that transaction's other writes too.
 */
export async function applyDecision(db: Db, run: Pick<RunRead, "id" | "dag_id" | "version">, d: RunDecision, now: Date): Promise<AppliedDecision | undefined> {
  const ends = d.runState !== "running";
  const rows = await runPrepared(
    db,
    sql<{ applied: boolean; missed: string[] | null; queued_runs: boolean | null }>`
    select a.applied, a.missed, set_config('synchronous_commit', 'off', true) as commit_mode,
      case when a.applied and ${ends}::boolean then exists (select 1 from dag_run q where q.dag_id = ${run.dag_id} and q.state = 'queued') end as queued_runs
    from svc_apply_decision(${run.id}, ${run.version}, ${now}, ${d.queue.map((q) => q.task_id)}::text[],
      ${d.queue.map((q) => (q.reschedule ? q.try_number : q.try_number - 1))}::int[], ${d.skip}::text[], ${d.upstreamFailed}::text[],
      ${ends ? d.runState : null}::text) a`,
  );
  const r = rows[0]!;
  if (!r.applied) return undefined;
  const dagHasQueuedRuns = r.queued_runs === true;
  if (!r.missed?.length) return { queued: d.queue, dagHasQueuedRuns };
  const missed = new Set(r.missed);
  return { queued: d.queue.filter((q) => !missed.has(q.task_id)), dagHasQueuedRuns };
}
