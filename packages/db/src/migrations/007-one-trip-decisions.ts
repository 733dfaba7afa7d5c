import { sql, type Kysely } from "kysely";

/**
 * The scheduler's writes become one statement each: applying a run's decision (svc_apply_decision)
 * and starting a DAG's queued runs (svc_start_runs) were transactions of 7 and 8 round trips, and
 * each commit woke the database several times on the path from one task's end to the next one's
 * start (dependency hop) and from a trigger to the first task.
 *
 * svc_apply_decision applies a decision computed from a read taken without locks (optimistic):
 * - it lands only while the run is still running at the version that was read. Every API write
 *   to a run's task instances bumps the version and holds the run row, which this call also takes,
 *   first, so a decision can never be applied over a clear or a mark it did not see. Both lock the
 *   run row before any task row: the same order, so they wait for each other and never deadlock
 *   (the transaction this replaces wrote the task rows first and the run row last);
 * - worker outcomes do not bump the version, and they need not: they only move tries to finished
 *   states, and a decision made from fewer finished tasks stays right (trigger rules decide only
 *   on certainties). Each row is still guarded by the state and try number that were read, so two
 *   schedulers applying the same decision queue each try once;
 * - queued tries the guard turned away (another scheduler queued them first) come back in
 *   `missed`, so that only the scheduler that queued a try enqueues its job.
 * Every statement is bounded by the run's primary-key range. The tasks to queue, with the try
 * number each was read at, are hash-joined with the run's rows: with no statistics yet (a burst of
 * new runs) the planner took a nested loop of n² comparisons, and a filter of the rows by the task
 * list and a lookup of each try number cost twice the hash join (measured: 10.8 → 5.3 µs per task
 * queued, 1000 tasks a run).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(APPLY_DECISION).execute(db);
  await sql.raw(START_RUNS).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_apply_decision`.execute(db);
  await sql`drop function svc_start_runs`.execute(db);
}

export const APPLY_DECISION = `
create function svc_apply_decision(p_run bigint, p_version int, p_now timestamptz, p_queue text[], p_tries int[],
  p_skip text[], p_upstream_failed text[], p_run_state text)
returns table (applied boolean, missed text[])
language plpgsql volatile
set enable_seqscan = off set enable_nestloop = off set enable_mergejoin = off
as $fn$
declare
  v_dag text;
  v_run text;
  v_missed text[];
begin
  update dag_run set evaluated_version = greatest(evaluated_version, p_version), last_scheduling_decision = p_now, updated_at = p_now,
    state = coalesce(p_run_state, state), end_date = case when p_run_state is null then end_date else p_now end
  where id = p_run and state = 'running' and version = p_version
  returning dag_id, run_id into v_dag, v_run;
  if not found then
    return query select false, null::text[];
    return;
  end if;
  if cardinality(p_queue) > 0 then
    with u as (
      update task_instance ti set state = 'queued', try_number = ti.try_number + 1, queued_at = p_now, next_retry_at = null,
        worker_id = null, updated_at = p_now, timeout_at = null
      from unnest(p_queue, p_tries) as q(task_id, try_number)
      where ti.dag_id = v_dag and ti.run_id = v_run and ti.task_id = q.task_id and ti.map_index = -1
        and ti.try_number = q.try_number and (ti.state is null or ti.state = 'up_for_retry')
      returning ti.task_id)
    select case when (select count(*) from u) = cardinality(p_queue) then null
      else array(select t from unnest(p_queue) t except select task_id from u) end
    into v_missed;
  end if;
  if cardinality(p_skip) > 0 then
    update task_instance set state = 'skipped', start_date = coalesce(start_date, p_now), end_date = p_now, duration = 0, updated_at = p_now
    where dag_id = v_dag and run_id = v_run and task_id = any(p_skip) and map_index = -1 and state is null;
  end if;
  if cardinality(p_upstream_failed) > 0 then
    update task_instance set state = 'upstream_failed', start_date = coalesce(start_date, p_now), end_date = p_now, duration = 0, updated_at = p_now
    where dag_id = v_dag and run_id = v_run and task_id = any(p_upstream_failed) and map_index = -1 and state is null;
  end if;
  return query select true, v_missed;
end
$fn$`;

/**
 * Start queued runs of an unpaused DAG, oldest logical date first, while max_active_runs allows;
 * serialised per DAG by a transaction-scoped advisory lock. Most calls find nothing queued (every
 * run's end asks) and return before taking the lock.
 */
export const START_RUNS = `
create function svc_start_runs(p_dag text, p_now timestamptz)
returns table (run_id text)
language plpgsql volatile
as $fn$
declare
  v_slots int;
begin
  if not exists (select 1 from dag_run d where d.dag_id = p_dag and d.state = 'queued') then
    return;
  end if;
  perform pg_advisory_xact_lock(hashtext('svc-dag:' || p_dag));
  select g.max_active_runs - (select count(*) from dag_run d where d.dag_id = p_dag and d.state = 'running')
  into v_slots from dag g where g.dag_id = p_dag and not g.is_paused;
  if v_slots is null or v_slots <= 0 then
    return;
  end if;
  return query
    with s as (
      update dag_run d set state = 'running', start_date = coalesce(d.start_date, p_now), end_date = null, updated_at = p_now, version = d.version + 1
      where d.id in (select q.id from dag_run q where q.dag_id = p_dag and q.state = 'queued' order by q.logical_date, q.id limit v_slots)
      returning d.run_id, d.logical_date, d.id)
    select s.run_id from s order by s.logical_date, s.id;
end
$fn$`;
