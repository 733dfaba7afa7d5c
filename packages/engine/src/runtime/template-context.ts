import { createTemplateContext, type TemplateContext } from "@svc/dags";
import type { DagRunRow, Db } from "@svc/db";

/** Variables visible to `{{ ... }}` templates and `when` conditions of a run's tasks. */
export function templateContext(run: Pick<DagRunRow, "dag_id" | "run_id" | "conf" | "logical_date">, outputs: Record<string, unknown>, runNote?: string | null): TemplateContext {
  return createTemplateContext({
    dagId: run.dag_id,
    runId: run.run_id,
    logicalDate: new Date(run.logical_date),
    params: run.conf ?? {},
    outputs,
    runNote,
  });
}

/** The outputs of a run's successful tasks, by task id: what `ti.<task>.output` reads. */
export async function successOutputs(db: Db, dagId: string, runId: string): Promise<Record<string, unknown>> {
  const rows = await db.selectFrom("task_instance").select(["task_id", "output"]).where("dag_id", "=", dagId).where("run_id", "=", runId).where("state", "=", "success").execute();
  return Object.fromEntries(rows.map((t) => [t.task_id, t.output]));
}
