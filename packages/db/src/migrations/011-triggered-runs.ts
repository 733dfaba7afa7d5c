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
const APPLY_DECISION = APPLY_DECISION_007.replace(
  "try_number = ti.try_number + 1,",
  "try_number = case when ti.state = 'up_for_reschedule' then ti.try_number else ti.try_number + 1 end,",
).replace("(ti.state is null or ti.state = 'up_for_retry')", "(ti.state is null or ti.state in ('up_for_retry', 'up_for_reschedule'))");
if (!APPLY_DECISION.includes("case when ti.state = 'up_for_reschedule'") || !APPLY_DECISION.includes("'up_for_reschedule'))"))
  throw new Error("migration 011: svc_apply_decision of 007 changed; update the rewrite");
