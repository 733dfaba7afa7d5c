CREATE OR REPLACE FUNCTION public.svc_apply_decision(p_run bigint, p_version integer, p_now timestamp with time zone, p_queue text[], p_tries integer[], p_skip text[], p_upstream_failed text[], p_run_state text)
 RETURNS TABLE(applied boolean, missed text[])
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
 SET enable_nestloop TO 'off'
 SET enable_mergejoin TO 'off'
AS $function$
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
$function$
