import type { DagRunRow } from "@svc/db";

/** Variables visible to `{{ ... }}` templates and `when` conditions of a run's tasks. */
export function templateContext(run: Pick<DagRunRow, "dag_id" | "run_id" | "conf" | "logical_date">, outputs: Record<string, unknown>): Record<string, unknown> {
  const logical = new Date(run.logical_date);
  return {
    params: run.conf ?? {},
    run_id: run.run_id,
    dag_id: run.dag_id,
    logical_date: logical.toISOString(),
    ds: logical.toISOString().slice(0, 10),
    ti: Object.fromEntries(Object.entries(outputs).map(([task, output]) => [task, { output: output ?? {} }])),
  };
}
