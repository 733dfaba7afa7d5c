import { sql, type RawBuilder } from "kysely";
import type { ApiTriggeredDagRun } from "./schemas";

/**
 * The runs a task instance triggered (trigger_dag_run), oldest try first, as one JSON array (null
 * when none): a correlated lookup on dag_run's partial parent index (migration 011), for a query
 * over `task_instance` under the alias `ti`.
 */
export function triggeredRunsOf(ti: string): RawBuilder<ApiTriggeredDagRun[] | null> {
  const t = (c: string) => sql.ref(`${ti}.${c}`);
  return sql<ApiTriggeredDagRun[] | null>`(select json_agg(json_build_object('dag_id', c.dag_id, 'dag_run_id', c.run_id, 'try_number', c.parent_try_number, 'state', c.state)
      order by c.parent_try_number, c.id)
    from dag_run c where c.parent_dag_id = ${t("dag_id")} and c.parent_run_id = ${t("run_id")} and c.parent_task_id = ${t("task_id")})`;
}
