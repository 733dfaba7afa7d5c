import { sql, type Kysely } from "kysely";
import { TRY_OPS_FUNCTION as PER_KEY_FUNCTION } from "./004-hot-path";

/**
 * svc_try_ops runs each kind of operation of a round as one set-based statement instead of one
 * statement per key: half the database CPU per try at the round sizes workers send (measured with
 * rounds of 16: 330 → 155 µs per try). The plan stays an index lookup per key whatever the
 * statistics say: the function turns off hash and merge joins and sequential and bitmap scans for
 * its own statements (a burst of new tasks without statistics used to get a hash join that scanned
 * every open task). Callers send keys in one order, so two rounds that touch the same rows lock
 * them in the same order and cannot deadlock. New: finishes, the outcome of a try of an instant
 * operator (no side effects, e.g. noop) that a worker ran before claiming it, written in one step.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(SET_BASED_FUNCTION).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The per-key body of 004, without the planner settings.
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(PER_KEY_FUNCTION).execute(db);
}

/**
 * Every lookup stays bounded by the round whatever the statistics say. An update compares the
 * table only with columns of the requests (a materialized CTE), never with constants: so no
 * index on state or map_index can serve as a scan of the table, the only access the planner has
 * left is a key lookup per request (the sequential scan is off), and the requests drive the loop.
 * The run context and the open checks are lateral lookups with a limit, which the planner cannot
 * flatten into a join it might turn around. Rows out: 'c' claimed (with the run's context),
 * 'k' committed, 'f' finished without a claim, 'o' run has unfinished tasks.
 */
export const SET_BASED_FUNCTION = `
create function svc_try_ops(p_now timestamptz, p_host text, p_pid int, p_claims jsonb, p_logs jsonb, p_commits jsonb, p_checks jsonb, p_finishes jsonb)
returns table (k text, dag_id text, run_id text, task_id text, try_number int, max_tries int, hostname text, dag_hash text, conf jsonb, logical_date timestamptz)
language plpgsql volatile
set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off set enable_bitmapscan = off
as $fn$
begin
  -- Claims take a try only while it is queued at that try number.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'queued'::text as want
      from jsonb_to_recordset(p_claims) as j(dag_id text, run_id text, task_id text, try_number int, worker_id text)),
    c as (
      update task_instance ti set state = 'running', start_date = p_now, end_date = null, duration = null,
        hostname = p_host, pid = p_pid, worker_id = x.worker_id, error = null, updated_at = p_now
      from x
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
        and ti.state = x.want and ti.try_number = x.try_number
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, ti.max_tries, ti.hostname)
    select 'c'::text, c.dag_id, c.run_id, c.task_id, c.try_number, c.max_tries, c.hostname, r.dag_hash, r.conf, r.logical_date
    from c cross join lateral (select d.dag_hash, d.conf, d.logical_date from dag_run d where d.dag_id = c.dag_id and d.run_id = c.run_id limit 1) r;
  insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
    select l.dag_id, l.run_id, l.task_id, l.try_number, l.stream, l.line
    from rows from (jsonb_to_recordset(p_logs) as (dag_id text, run_id text, task_id text, try_number int, stream text, line text))
      with ordinality as l(dag_id, run_id, task_id, try_number, stream, line, n)
    order by l.n;
  -- Commits land only while that worker still runs that try.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'running'::text as want
      from jsonb_to_recordset(p_commits) as j(dag_id text, run_id text, task_id text, try_number int, worker_id text,
        state text, output jsonb, error text, next_retry_at timestamptz))
    update task_instance ti set state = x.state, end_date = p_now, duration = extract(epoch from (p_now - ti.start_date)),
      output = x.output, error = x.error, next_retry_at = x.next_retry_at, updated_at = p_now
    from x
    where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
      and ti.state = x.want and ti.try_number = x.try_number and ti.worker_id = x.worker_id
    returning 'k'::text, ti.dag_id, ti.run_id, ti.task_id, ti.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz;
  -- Finishes: tries of instant operators (no side effects) that ran without a claim. One step from
  -- queued to success, only while queued at that try number and for that operator (a stale job of
  -- a deleted run must not finish another task of a new run with the same ids); their log lines
  -- land only with them.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'queued'::text as want
      from rows from (jsonb_to_recordset(p_finishes) as (dag_id text, run_id text, task_id text, try_number int, worker_id text,
        operator text, started timestamptz, output jsonb, lines jsonb)) with ordinality as j(dag_id, run_id, task_id, try_number, worker_id, operator, started, output, lines, n)),
    f as (
      update task_instance ti set state = 'success', queued_at = coalesce(ti.queued_at, x.started), start_date = x.started, end_date = p_now,
        duration = extract(epoch from (p_now - x.started)), hostname = p_host, pid = p_pid, worker_id = x.worker_id,
        output = x.output, error = null, next_retry_at = null, updated_at = p_now
      from x
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
        and ti.state = x.want and ti.try_number = x.try_number and ti.operator = x.operator
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, x.n),
    l as (
      -- The lines of the request that landed (of a job sent twice in a round, one lands).
      insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
      select f.dag_id, f.run_id, f.task_id, f.try_number, e.value->>'stream', e.value->>'line'
      from f join x on x.n = f.n
      cross join lateral jsonb_array_elements(x.lines) with ordinality as e(value, n)
      order by x.n, e.n)
    select 'f'::text, f.dag_id, f.run_id, f.task_id, f.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz from f;
  -- Open checks run last, so they see this round's commits.
  return query
    select 'o'::text, x.dag_id, x.run_id, null::text, null::int, null::int, null::text, null::text, null::jsonb, null::timestamptz
    from (select distinct j.dag_id, j.run_id from jsonb_to_recordset(p_checks) as j(dag_id text, run_id text)) x
    cross join lateral (select 1 from task_instance t where t.dag_id = x.dag_id and t.run_id = x.run_id
      and (t.state is null or t.state in ('scheduled', 'queued', 'running', 'up_for_retry')) limit 1) o;
end
$fn$`;
