import { sql, type Kysely } from "kysely";
import { APPLY_DECISION as APPLY_DECISION_007 } from "./007-one-trip-decisions";

/**
 * Runs triggered by a task (operator `trigger_dag_run`) and tries that wait without a worker slot:
 * - `dag_run.parent_*` names the task instance and try that created the run, written by the same
 *   statement that inserts the run, so a run is never without its link; a partial index serves the
 *   "runs this task triggered" lookups (the API's task instances);
 * - task state `up_for_reschedule` (Airflow's): a try that released its slot and is queued again at
 *   `next_retry_at` *at the same try number* (a sensor's poke). svc_apply_decision queues it like an
 *   `up_for_retry` one, without the try number's increment.
 * svc_try_ops's open-run check is left as it was: it does not count a rescheduled task as open, so
 * a leaf that finishes beside one notifies the scheduler once more than it needs to, which is
 * harmless (the evaluation finds the run still running).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dag_run add column parent_dag_id text, add column parent_run_id text, add column parent_task_id text, add column parent_try_number int`.execute(db);
  await sql`create index dag_run_parent_idx on dag_run (parent_dag_id, parent_run_id, parent_task_id) where parent_dag_id is not null`.execute(db);
  await sql`alter table task_instance drop constraint task_instance_state_check`.execute(db);
  await sql`alter table task_instance add constraint task_instance_state_check check (state is null or state in
    ('scheduled','queued','running','success','failed','up_for_retry','up_for_reschedule','upstream_failed','skipped'))`.execute(db);
  await sql`drop function svc_apply_decision`.execute(db);
  await sql.raw(APPLY_DECISION).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_apply_decision`.execute(db);
  await sql.raw(APPLY_DECISION_007).execute(db);
  await sql`update task_instance set state = 'up_for_retry' where state = 'up_for_reschedule'`.execute(db);
  await sql`alter table task_instance drop constraint task_instance_state_check`.execute(db);
  await sql`alter table task_instance add constraint task_instance_state_check check (state is null or state in
    ('scheduled','queued','running','success','failed','up_for_retry','upstream_failed','skipped'))`.execute(db);
  await sql`drop index dag_run_parent_idx`.execute(db);
  await sql`alter table dag_run drop column parent_dag_id, drop column parent_run_id, drop column parent_task_id, drop column parent_try_number`.execute(db);
}

/**
 * svc_apply_decision of 007, except that a task `up_for_reschedule` is queued at the try number it
 * has (the caller sends that number as the one read; for the others, the number read is the new
 * try's minus one, as before).
 */
const APPLY_DECISION = `
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
      update task_instance ti set state = 'queued', try_number = case when ti.state = 'up_for_reschedule' then ti.try_number else ti.try_number + 1 end, queued_at = p_now, next_retry_at = null,
        worker_id = null, updated_at = p_now, timeout_at = null
      from unnest(p_queue, p_tries) as q(task_id, try_number)
      where ti.dag_id = v_dag and ti.run_id = v_run and ti.task_id = q.task_id and ti.map_index = -1
        and ti.try_number = q.try_number and (ti.state is null or ti.state in ('up_for_retry', 'up_for_reschedule'))
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
