import { sql, type Kysely } from "kysely";
import { TRY_OPS_CHECKS } from "./005-set-based-try-ops";
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

export const CLOSED_RUN_CHECKS = `  -- Open checks run last, so they see this round's commits. A closed run comes back as its read.
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
`;

export const CLOSED_READS_FUNCTION = HOPS_FUNCTION.replace(TRY_OPS_CHECKS, CLOSED_RUN_CHECKS);
if (CLOSED_READS_FUNCTION === HOPS_FUNCTION) throw new Error("migration 017: svc_try_ops's checks of 015 changed; update the rewrite");
