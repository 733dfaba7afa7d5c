import { createTemplateContext, type TemplateContext } from "@svc/dags";
import type { DagRunRow } from "@svc/db";

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
