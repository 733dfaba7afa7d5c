import type { PgPool } from "@svc/db";

/**
 * Records every landing of a try's outcome (a task instance entering success, failed or
 * up_for_retry) in a table of the benchmark's own database, so that a try committed twice shows up
 * as two rows for one (run, task, try), whichever process wrote them.
 */
export async function installCommitAudit(db: PgPool): Promise<void> {
  await db.query(
    `create table if not exists chaos_commit (dag_id text not null, run_id text not null, task_id text not null, try_number int not null, state text not null, at timestamptz not null default clock_timestamp())`,
  );
  await db.query(`create or replace function chaos_commit_audit() returns trigger language plpgsql as $$
    begin
      insert into chaos_commit (dag_id, run_id, task_id, try_number, state) values (new.dag_id, new.run_id, new.task_id, new.try_number, new.state);
      return new;
    end $$`);
  await db.query(`drop trigger if exists chaos_commit_audit on task_instance`);
  await db.query(`create trigger chaos_commit_audit after update on task_instance for each row
    when (old.state is distinct from new.state and new.state in ('success', 'failed', 'up_for_retry'))
    execute function chaos_commit_audit()`);
}

export interface RunCounts {
  runs: number;
  success: number;
  failed: number;
  /** Failed runs with no failed task carrying an error. */
  failedWithoutReason: number;
  /** Runs still queued or running. */
  unfinishedRuns: number;
  /** Task instances not in a final state (none, scheduled, queued, running, up_for_retry). */
  stuckTasks: number;
  /** (run, task, try) whose outcome landed more than once. */
  doubleCommits: number;
  /** Tries closed because their worker stopped heartbeating (killed). */
  zombieTries: number;
  /** Tries beyond the first, all tasks together (retries and zombie re-runs). */
  extraTries: number;
  /** Failure reasons of failed runs, with counts. */
  reasons: Record<string, number>;
}

const one = async (db: PgPool, q: string, args: unknown[]): Promise<number> => Number((await db.query<{ n: number }>(q, args)).rows[0]!.n);

export async function countRuns(db: PgPool, dagId: string): Promise<RunCounts> {
  const states = await db.query<{ state: string; n: number }>("select state, count(*)::int as n from dag_run where dag_id = $1 group by state", [dagId]);
  const by = Object.fromEntries(states.rows.map((s) => [s.state, s.n])) as Record<string, number>;
  const failedWithoutReason = await one(
    db,
    `select count(*)::int as n from dag_run r where r.dag_id = $1 and r.state = 'failed'
    and not exists (select 1 from task_instance t where t.dag_id = r.dag_id and t.run_id = r.run_id and t.state = 'failed' and coalesce(t.error, '') <> '')`,
    [dagId],
  );
  const stuckTasks = await one(
    db,
    "select count(*)::int as n from task_instance where dag_id = $1 and (state is null or state not in ('success', 'failed', 'skipped', 'upstream_failed'))",
    [dagId],
  );
  const doubleCommits = await one(
    db,
    "select count(*)::int as n from (select 1 from chaos_commit where dag_id = $1 group by dag_id, run_id, task_id, try_number having count(*) > 1) d",
    [dagId],
  );
  const tries = await db.query<{ z: number; x: number }>(
    "select coalesce(sum(zombie_count), 0)::int as z, coalesce(sum(greatest(try_number - 1, 0)), 0)::int as x from task_instance where dag_id = $1",
    [dagId],
  );
  const reasons = await db.query<{ error: string; n: number }>(
    `select coalesce(t.error, '(none)') as error, count(*)::int as n from task_instance t join dag_run r using (dag_id, run_id)
    where r.dag_id = $1 and r.state = 'failed' and t.state = 'failed' group by 1 order by 2 desc limit 10`,
    [dagId],
  );
  return {
    runs: Object.values(by).reduce((a, b) => a + b, 0),
    success: by.success ?? 0,
    failed: by.failed ?? 0,
    failedWithoutReason,
    unfinishedRuns: (by.queued ?? 0) + (by.running ?? 0),
    stuckTasks,
    doubleCommits,
    zombieTries: tries.rows[0]!.z,
    extraTries: tries.rows[0]!.x,
    reasons: Object.fromEntries(reasons.rows.map((r) => [r.error, r.n])),
  };
}

/** Flows of the given ids: how many exist, and how many have not reached a settled status. */
export async function countFlows(db: PgPool, flowIds: string[]): Promise<{ found: number; unsettled: number; byStatus: Record<string, number> }> {
  if (!flowIds.length) return { found: 0, unsettled: 0, byStatus: {} };
  const rows = await db.query<{ status: string; n: number }>("select status, count(*)::int as n from flow where flow_id = any($1) group by status", [flowIds]);
  const byStatus = Object.fromEntries(rows.rows.map((r) => [r.status, r.n])) as Record<string, number>;
  const unsettled = ["pending", "planning", "approved"].reduce((a, s) => a + (byStatus[s] ?? 0), 0);
  return { found: rows.rows.reduce((a, r) => a + r.n, 0), unsettled, byStatus };
}
