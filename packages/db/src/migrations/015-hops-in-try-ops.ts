import { sql, type Kysely } from "kysely";
import { TRY_OPS_CHECKS, TRY_OPS_CLAIMS, TRY_OPS_END, TRY_OPS_HEADER, TRY_OPS_LOGS } from "./005-set-based-try-ops";
import { LEAN_FUNCTION, when } from "./008-lean-try-ops";

/**
 * The plain dependency hop is decided in the round that lands the try's success: a finish or a
 * successful commit may name `hops`, the downstream tasks whose only upstream is that task and
 * whose trigger rule runs on its success (no condition). They go `none → queued` (try number + 1)
 * in the same statement, only if the try's outcome landed, the task is still without a state and
 * its run is running; each comes back as a 'q' row (with its host), and the worker adds its job.
 * One round trip and one commit per hop instead of three and two (the run read and
 * svc_apply_decision). Safe without the run's lock: a downstream task with a single upstream
 * depends on nothing else, and an API write that ends the run or clears tasks writes the task's
 * row, so it waits for this round (or this round for it) and the row's guard decides.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(HOPS_FUNCTION).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function svc_try_ops`.execute(db);
  await sql.raw(LEAN_FUNCTION).execute(db);
}

/**
 * Queue the hops of the tries in CTE `src` (columns dag_id, run_id, hops) as CTE `h`. The hops are
 * materialized first and the task's state is compared with a column of theirs ("no state yet"
 * as ''), never with a constant: so each hop reaches its row by the full key. With `state is null`
 * the planner estimated one such row in the table and read all of them to find the hops.
 */
const HOPS = (src: string, keep: boolean) => `    hq as materialized (
      select s.dag_id, s.run_id, t.task_id, -1 as map_index, ''::text as want${keep ? ", t.task_id = s.keep as keep, s.worker_id" : ""}
      from ${src} s cross join lateral jsonb_array_elements_text(s.hops) as t(task_id)
      where s.hops is not null),
    h as (
      update task_instance ti set ${keep ? KEPT_SET : "state = 'queued'"}, try_number = ti.try_number + 1, queued_at = p_now, next_retry_at = null,
        worker_id = ${keep ? `case when ${KEPT} then q.worker_id end` : "null"}, updated_at = p_now, timeout_at = null
      from hq q cross join lateral (select d.state${keep ? ", d.dag_hash, d.conf, d.logical_date" : ""} from dag_run d where d.dag_id = q.dag_id and d.run_id = q.run_id limit 1) r
      where ti.dag_id = q.dag_id and ti.run_id = q.run_id and ti.task_id = q.task_id and ti.map_index = q.map_index
        and coalesce(ti.state, '') = q.want and r.state = 'running'
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, ti.host${keep ? ", ti.state, ti.max_tries, r.dag_hash, r.conf, r.logical_date" : ""})
`;

/** The hop a request names as kept (migration 018), unless routed to a host: claimed for its worker, as a claim would. */
const KEPT = "q.keep and ti.host is null";
const KEPT_SET = `state = case when ${KEPT} then 'running' else 'queued' end,
        start_date = case when ${KEPT} then p_now else ti.start_date end, end_date = case when ${KEPT} then null else ti.end_date end,
        duration = case when ${KEPT} then null else ti.duration end, error = case when ${KEPT} then null else ti.error end,
        hostname = case when ${KEPT} then p_host else ti.hostname end, pid = case when ${KEPT} then p_pid else ti.pid end`;
const HOP_ROWS = (keep: boolean) =>
  keep
    ? `    select case when h.state = 'running' then 'Q' else 'q' end::text, h.dag_id, h.run_id, h.task_id, h.try_number,
      case when h.state = 'running' then h.max_tries end, case when h.state = 'running' then p_host else h.host end,
      case when h.state = 'running' then h.dag_hash end, case when h.state = 'running' then h.conf end,
      case when h.state = 'running' then h.logical_date end from h`
    : `    select 'q'::text, h.dag_id, h.run_id, h.task_id, h.try_number, null::int, h.host, null::text, null::jsonb, null::timestamptz from h`;

const COMMITS = (keep: boolean) =>
  `  -- Commits land only while that worker still runs that try; a success queues its hops.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'running'::text as want
      from jsonb_to_recordset(p_commits) as j(dag_id text, run_id text, task_id text, try_number int, worker_id text,
        state text, output jsonb, error text, next_retry_at timestamptz, hops jsonb${keep ? ", keep text" : ""})),
    k as (
      update task_instance ti set state = x.state, end_date = p_now, duration = extract(epoch from (p_now - ti.start_date)),
        output = x.output, error = x.error, next_retry_at = x.next_retry_at, updated_at = p_now
      from x
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
        and ti.state = x.want and ti.try_number = x.try_number and ti.worker_id = x.worker_id
      returning ti.dag_id, ti.run_id, ti.task_id, ti.try_number, case when x.state = 'success' then x.hops end as hops${keep ? ", x.keep, x.worker_id" : ""}),
` +
  HOPS("k", keep) +
  `    select 'k'::text, k.dag_id, k.run_id, k.task_id, k.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz from k
    union all
` +
  HOP_ROWS(keep) +
  `;
`;

const FINISHES = (keep: boolean) =>
  `  -- Finishes: tries of instant operators (no side effects) that ran without a claim. One step from
  -- queued to success, only while queued at that try number and for that operator (a stale job of
  -- a deleted run must not finish another task of a new run with the same ids); their log lines
  -- and hops land only with them. Rows out: the finishes that did not land, and the hops queued.
  return query
    with x as materialized (
      select j.*, -1 as map_index, 'queued'::text as want
      from rows from (jsonb_to_recordset(p_finishes) as (dag_id text, run_id text, task_id text, try_number int, worker_id text,
        operator text, started timestamptz, output jsonb, lines jsonb, hops jsonb${keep ? ", keep text" : ""}))
        with ordinality as j(dag_id, run_id, task_id, try_number, worker_id, operator, started, output, lines, hops, ${keep ? "keep, " : ""}n)),
    f as (
      update task_instance ti set state = 'success', queued_at = coalesce(ti.queued_at, x.started), start_date = x.started, end_date = p_now,
        duration = extract(epoch from (p_now - x.started)), hostname = p_host, pid = p_pid, worker_id = x.worker_id,
        output = x.output, error = null, next_retry_at = null, updated_at = p_now
      from x
      where ti.dag_id = x.dag_id and ti.run_id = x.run_id and ti.task_id = x.task_id and ti.map_index = x.map_index
        and ti.state = x.want and ti.try_number = x.try_number and ti.operator = x.operator
      returning x.n, x.dag_id, x.run_id, x.task_id, x.try_number, x.lines, x.hops${keep ? ", x.keep, x.worker_id" : ""}),
    l as (
      insert into task_log (dag_id, run_id, task_id, try_number, stream, line)
      select f.dag_id, f.run_id, f.task_id, f.try_number, e.value->>'stream', e.value->>'line'
      from f cross join lateral jsonb_array_elements(f.lines) with ordinality as e(value, n)
      where f.lines is not null
      order by f.n, e.n),
` +
  HOPS("f", keep) +
  `    select 'F'::text, x.dag_id, x.run_id, x.task_id, x.try_number, null::int, null::text, null::text, null::jsonb, null::timestamptz
    from x where not exists (select 1 from f where f.n = x.n)
    union all
` +
  HOP_ROWS(keep) +
  `;
`;

/** svc_try_ops with hops; with `keep` (migration 018), a commit or finish may name one of its hops for its round to claim for its worker. */
export const hopsFunction = (keep: boolean, checks = TRY_OPS_CHECKS) =>
  TRY_OPS_HEADER +
  when("p_claims", TRY_OPS_CLAIMS) +
  when("p_logs", TRY_OPS_LOGS) +
  when("p_commits", COMMITS(keep)) +
  when("p_finishes", FINISHES(keep)) +
  when("p_checks", checks) +
  TRY_OPS_END;

export const HOPS_FUNCTION = hopsFunction(false);
