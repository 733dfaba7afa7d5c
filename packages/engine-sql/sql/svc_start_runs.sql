CREATE OR REPLACE FUNCTION public.svc_start_runs(p_dag text, p_now timestamp with time zone)
 RETURNS TABLE(run_id text, r_id bigint, r_conf jsonb, r_logical_date timestamp with time zone, r_dag_hash text, r_version integer, r_evaluated_version integer, r_tis json)
 LANGUAGE plpgsql
AS $function$
declare
  v_slots int;
  v_paused boolean;
begin
  if not exists (select 1 from dag_run d where d.dag_id = p_dag and d.state = 'queued') then
    return;
  end if;
  perform pg_advisory_xact_lock(hashtext('svc-dag:' || p_dag));
  select g.max_active_runs - (select count(*) from dag_run d where d.dag_id = p_dag and d.state = 'running'), g.is_paused
  into v_slots, v_paused from dag g where g.dag_id = p_dag;
  if v_slots is null or v_slots <= 0 then
    return;
  end if;
  return query
    with s as (
      update dag_run d set state = 'running', start_date = coalesce(d.start_date, p_now), end_date = null, updated_at = p_now, version = d.version + 1
      where d.id in (select q.id from dag_run q where q.dag_id = p_dag and q.state = 'queued' and (not v_paused or q.run_while_paused)
                     order by q.logical_date, q.id limit v_slots)
      returning d.run_id, d.logical_date, d.id, d.conf, d.dag_hash, d.version, d.evaluated_version)
    select s.run_id, s.id, s.conf, s.logical_date, s.dag_hash, s.version, s.evaluated_version,
      (select coalesce(json_agg(json_build_array(t.task_id, t.state, t.try_number, t.next_retry_at, t.host)), '[]')
       from task_instance t where t.dag_id = p_dag and t.run_id = s.run_id)
    from s order by s.logical_date, s.id;
end
$function$
