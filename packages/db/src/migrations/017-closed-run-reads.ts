import { sql, type Kysely } from "kysely";
import { HOPS_FUNCTION } from "./015-hops-in-try-ops";

/**
 * An open check of svc_try_ops that finds a run without unfinished tasks returns, instead of no
 * row, an 'r' row with what an evaluation reads of the run: its row (dag_hash, logical_date, and in
 * `conf` a JSON object with id, state, conf, version, evaluated_version) and its task instances
 * (`tis`, the engine's run read's tuples). The worker evaluates that run's end from it without
 * reading the run again: one round trip fewer per run end. A run with unfinished tasks still
 * returns its 'o' row; the rest of the function is 015's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(CLOSED_READS_FUNCTION).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(HOPS_FUNCTION).execute(db);
}

/** svc_try_ops of 015 with the open checks returning a closed run's read ('r'). */
export const CLOSED_READS_FUNCTION = `
create function svc_try_ops(p_now timestamptz, p_host text, p_pid int, p_claims jsonb, p_logs jsonb, p_commits jsonb, p_checks jsonb, p_finishes jsonb)
returns table (k text, dag_id text, run_id text, task_id text, try_number int, max_tries int, hostname text, dag_hash text, conf jsonb, logical_date timestamptz)
language plpgsql volatile
set enable_hashjoin = off set enable_mergejoin = off set enable_seqscan = off set enable_bitmapscan = off
as $fn$
begin
  if p_claims <> '[]'::jsonb then
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
  end if;
  if p_logs <> '[]'::jsonb then
  insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
    select l.dag_id, l.run_id, l.task_id, l.try_number, l.stream, l.line
    from rows from (jsonb_to_recordset(p_logs) as (dag_id text, run_id text, task_id text, try_number int, stream text, line text))
      with ordinality as l(dag_id, run_id, task_id, try_number, stream, line, n)
    order by l.n;
  end if;
  if p_commits <> '[]'::jsonb then
  -- Commits land only while that worker still runs that try; a success queues its hops.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'running'::text as want
      from jsonb_to_recordset(p_commits) as j(dag_id text, run_id text, task_id text, try_number int, worker_id text,
        state text, output jsonb, error text, next_retry_at timestamptz, hops jsonb)),
    k as (
      update task_instance ti set state = x.state, end_date = p_now, duration = extract(epoch from (p_now - ti.start_date)),
        output = x.output, error = x.error, next_retry_at = x.next_retry_at, updated_at = p_now
      from x
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
        and ti.state = x.want and ti.try_number = x.try_number and ti.worker_id = x.worker_id
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, case when x.state = 'success' then x.hops end as hops),
    hq as materialized (
      select s.dag_id, s.run_id, t.task_id, -1 as map_index, ''::text as want
      from k s cross join lateral jsonb_array_elements_text(s.hops) as t(task_id)
      where s.hops is not null),
    h as (
      update task_instance ti set state = 'queued', try_number = ti.try_number + 1, queued_at = p_now, next_retry_at = null,
        worker_id = null, updated_at = p_now, timeout_at = null
      from hq q cross join lateral (select d.state from dag_run d where d.dag_id = q.dag_id and d.run_id = q.run_id limit 1) r
      where ti.dag_id = q.dag_id and ti.run_id = q.run_id and ti.task_id = q.task_id and ti.map_index = q.map_index
        and coalesce(ti.state, '') = q.want and r.state = 'running'
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, ti.host)
    select 'k'::text, k.dag_id, k.run_id, k.task_id, k.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz from k
    union all
    select 'q'::text, h.dag_id, h.run_id, h.task_id, h.try_number, null::int, h.host, null::text, null::jsonb, null::timestamptz from h;
  end if;
  if p_finishes <> '[]'::jsonb then
  -- Finishes: tries of instant operators (no side effects) that ran without a claim. One step from
  -- queued to success, only while queued at that try number and for that operator (a stale job of
  -- a deleted run must not finish another task of a new run with the same ids); their log lines
  -- and hops land only with them. Rows out: the finishes that did not land, and the hops queued.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'queued'::text as want
      from rows from (jsonb_to_recordset(p_finishes) as (dag_id text, run_id text, task_id text, try_number int, worker_id text,
        operator text, started timestamptz, output jsonb, lines jsonb, hops jsonb))
        with ordinality as j(dag_id, run_id, task_id, try_number, worker_id, operator, started, output, lines, hops, n)),
    f as (
      update task_instance ti set state = 'success', queued_at = coalesce(ti.queued_at, x.started), start_date = x.started, end_date = p_now,
        duration = extract(epoch from (p_now - x.started)), hostname = p_host, pid = p_pid, worker_id = x.worker_id,
        output = x.output, error = null, next_retry_at = null, updated_at = p_now
      from x
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
        and ti.state = x.want and ti.try_number = x.try_number and ti.operator = x.operator
      returning x.n, x.dag_id, x.run_id, x.task_id, x.try_number, x.lines, x.hops),
    l as (
      insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
      select f.dag_id, f.run_id, f.task_id, f.try_number, e.value->>'stream', e.value->>'line'
      from f cross join lateral jsonb_array_elements(f.lines) with ordinality as e(value, n)
      where f.lines is not null
      order by f.n, e.n),
    hq as materialized (
      select s.dag_id, s.run_id, t.task_id, -1 as map_index, ''::text as want
      from f s cross join lateral jsonb_array_elements_text(s.hops) as t(task_id)
      where s.hops is not null),
    h as (
      update task_instance ti set state = 'queued', try_number = ti.try_number + 1, queued_at = p_now, next_retry_at = null,
        worker_id = null, updated_at = p_now, timeout_at = null
      from hq q cross join lateral (select d.state from dag_run d where d.dag_id = q.dag_id and d.run_id = q.run_id limit 1) r
      where ti.dag_id = q.dag_id and ti.run_id = q.run_id and ti.task_id = q.task_id and ti.map_index = q.map_index
        and coalesce(ti.state, '') = q.want and r.state = 'running'
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, ti.host)
    select 'F'::text, x.dag_id, x.run_id, x.task_id, x.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz
    from x where not exists (select 1 from f where f.n = x.n)
    union all
    select 'q'::text, h.dag_id, h.run_id, h.task_id, h.try_number, null::int, h.host, null::text, null::jsonb, null::timestamptz from h;
  end if;
  if p_checks <> '[]'::jsonb then
  -- Open checks run last, so they see this round's commits. A closed run comes back as its read.
  return query
    select case when o.one is null then 'r' else 'o' end, x.dag_id, x.run_id, null::text, null::int, null::int, null::text,
      case when o.one is null then r.dag_hash end,
      case when o.one is null then jsonb_build_object('id', r.id, 'state', r.state, 'conf', r.conf, 'version', r.version,
        'evaluated_version', r.evaluated_version,
        'tis', (select coalesce(jsonb_agg(jsonb_build_array(t.task_id, t.state, t.try_number, t.next_retry_at, t.host)), '[]')
                from task_instance t where t.dag_id = x.dag_id and t.run_id = x.run_id)) end,
      case when o.one is null then r.logical_date end
    from (select distinct j.dag_id, j.run_id from jsonb_to_recordset(p_checks) as j(dag_id text, run_id text)) x
    join dag_run r on r.dag_id = x.dag_id and r.run_id = x.run_id
    left join lateral (select 1 as one from task_instance t where t.dag_id = x.dag_id and t.run_id = x.run_id
      and (t.state is null or t.state in ('scheduled', 'queued', 'running', 'up_for_retry')) limit 1) o on true;
  end if;
end
$fn$`;
