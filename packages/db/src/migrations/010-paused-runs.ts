import { sql, type Kysely } from "kysely";
import { START_RUNS as START_RUNS_007 } from "./007-one-trip-decisions";

/**
 * One run of a paused DAG: a flow an operator approved on a paused DAG runs that one run and
 * leaves the DAG paused (its schedule stays off). The run carries `run_while_paused`; the
 * scheduler starts such runs, within max_active_runs, while the DAG's other queued runs wait
 * for it to be unpaused, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dag_run add column run_while_paused boolean not null default false`.execute(db);
  await sql`drop function svc_start_runs(text, timestamptz)`.execute(db);
  await sql.raw(START_RUNS).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_start_runs(text, timestamptz)`.execute(db);
  await sql.raw(START_RUNS_007).execute(db);
  await sql`alter table dag_run drop column run_while_paused`.execute(db);
}

/** svc_start_runs of 007, with a paused DAG starting only the runs marked run_while_paused. */
export const START_RUNS = `
create function svc_start_runs(p_dag text, p_now timestamptz)
returns table (run_id text)
language plpgsql volatile
as $fn$
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
      returning d.run_id, d.logical_date, d.id)
    select s.run_id from s order by s.logical_date, s.id;
end
$fn$`;
