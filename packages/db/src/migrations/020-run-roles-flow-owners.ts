import { sql, type Kysely } from "kysely";

/**
 * Who may act on what a run or a flow starts:
 * - `dag_run.trigger_role`: the role the run was triggered or approved with (the REST caller's, a
 *   tool client's, a flow's approver's; `viewer` for a flow nobody approved), null for an internal
 *   trigger (the scheduler, the operator's CLI). The runs its tasks trigger (trigger_dag_run) carry
 *   it: their `min_role` params and a paused child DAG are checked against it.
 * - `flow.created_by`: the actor who submitted the intent; only that actor, or an op and above,
 *   answers or cancels the flow. Flows created before are given the actor of their `flow.created`
 *   audit event.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dag_run add column trigger_role text check (trigger_role in ('viewer', 'user', 'op', 'admin'))`.execute(db);
  await sql`alter table flow add column created_by text`.execute(db);
  await sql`update flow f set created_by = a.actor from audit_event a where a.action = 'flow.created' and a.target = f.flow_id`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table flow drop column created_by`.execute(db);
  await sql`alter table dag_run drop column trigger_role`.execute(db);
}
