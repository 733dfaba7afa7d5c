import { sql, type Kysely } from "kysely";

/**
 * Cheaper, plan-stable task bookkeeping on the hot path of every try:
 * - Unfinished task instances get their own partial index, keyed like the primary key: "does this run
 *   still have open tasks?" is asked after leaf outcomes and must not scan the run's finished tasks,
 *   and a task leaving the open states costs no index insert. It replaces the plain index on state:
 *   every query by state is for open states (zombies, reconciliation, the scheduler).
 * - task_log loses its foreign key to dag_run: the check locked the run row (FOR KEY SHARE) for every
 *   log line, so concurrent tries of one run contended on it. Deleting a run deletes its logs
 *   explicitly (engine API), in the same transaction.
 * - svc_try_ops: a round of the workers' claims, outcome commits (with their last log lines) and
 *   open-run checks in one call. Each row is reached by its full key, one statement per key, so the
 *   plan is an index lookup whatever the statistics say: joined as a set, a planner with no or stale
 *   statistics (a new database, a burst of new tasks) scanned every open task to claim a few.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index task_instance_open_idx on task_instance (dag_id, run_id, task_id)
    where state is null or state in ('scheduled', 'queued', 'running', 'up_for_retry')`.execute(db);
  await sql`drop index task_instance_state_idx`.execute(db);
  await sql`alter table task_log drop constraint task_log_run_fk`.execute(db);
  await sql.raw(TRY_OPS_FUNCTION).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function if exists svc_try_ops`.execute(db);
  await sql`delete from task_log l where not exists (select 1 from dag_run r where r.dag_id = l.dag_id and r.run_id = l.run_id)`.execute(db);
  await sql`alter table task_log add constraint task_log_run_fk foreign key (dag_id, run_id) references dag_run (dag_id, run_id) on delete cascade`.execute(db);
  await sql`create index task_instance_state_idx on task_instance (state)`.execute(db);
  await sql`drop index if exists task_instance_open_idx`.execute(db);
}

/**
 * Claims take a try only while it is queued at that try number; commits land only while that worker
 * still runs that try; open checks run last, so they see this round's commits. Rows out: kind
 * 'c' (claimed, with the run's context), 'k' (committed) or 'o' (run has unfinished tasks).
 */
export const TRY_OPS_FUNCTION = `
create function svc_try_ops(p_now timestamptz, p_host text, p_pid int, p_claims jsonb, p_logs jsonb, p_commits jsonb, p_checks jsonb)
returns table (k text, dag_id text, run_id text, task_id text, try_number int, max_tries int, hostname text, dag_hash text, conf jsonb, logical_date timestamptz)
language plpgsql volatile as $fn$
declare
  x record;
begin
  for x in select * from jsonb_to_recordset(p_claims) as j(dag_id text, run_id text, task_id text, try_number int, worker_id text) loop
    return query
      with c as (
        update task_instance ti set state = 'running', start_date = p_now, end_date = null, duration = null,
          hostname = p_host, pid = p_pid, worker_id = x.worker_id, error = null, updated_at = p_now
        where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = -1
          and ti.state = 'queued' and ti.try_number = x.try_number
        returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, ti.max_tries, ti.hostname)
      select 'c'::text, c.dag_id, c.run_id, c.task_id, c.try_number, c.max_tries, c.hostname, r.dag_hash, r.conf, r.logical_date
      from c join dag_run r on r.dag_id = c.dag_id and r.run_id = c.run_id;
  end loop;
  insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
    select l.dag_id, l.run_id, l.task_id, l.try_number, l.stream, l.line
    from rows from (jsonb_to_recordset(p_logs) as (dag_id text, run_id text, task_id text, try_number int, stream text, line text))
      with ordinality as l(dag_id, run_id, task_id, try_number, stream, line, n)
    order by l.n;
  for x in select * from jsonb_to_recordset(p_commits) as j(dag_id text, run_id text, task_id text, try_number int, worker_id text,
      state text, output jsonb, error text, next_retry_at timestamptz) loop
    return query
      update task_instance ti set state = x.state, end_date = p_now, duration = extract(epoch from (p_now - ti.start_date)),
        output = x.output, error = x.error, next_retry_at = x.next_retry_at, updated_at = p_now
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = -1
        and ti.state = 'running' and ti.try_number = x.try_number and ti.worker_id = x.worker_id
      returning 'k'::text, ti.dag_id, ti.run_id, ti.task_id, ti.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz;
  end loop;
  for x in select distinct j.dag_id, j.run_id from jsonb_to_recordset(p_checks) as j(dag_id text, run_id text) loop
    perform 1 from task_instance t where t.dag_id = x.dag_id and t.run_id = x.run_id
      and (t.state is null or t.state in ('scheduled', 'queued', 'running', 'up_for_retry')) limit 1;
    if found then
      return query select 'o'::text, x.dag_id, x.run_id, null::text, null::int, null::int, null::text, null::text, null::jsonb, null::timestamptz;
    end if;
  end loop;
end
$fn$`;
