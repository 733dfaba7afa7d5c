import { sql } from "kysely";
import type { Db } from "@svc/db";
import { isoOrNull } from "@svc/engine";
import type { GridCell } from "./grid-data";

/**
 * The grid's squares of several runs in one indexed read (the REST API's paging would take dozens of
 * round trips for a 200-task × 25-run grid). Read-only; the same columns the API serializes.
 */
export async function gridCellsFromDb(db: Db, dagId: string, runIds: string[]): Promise<GridCell[]> {
  if (!runIds.length) return [];
  const rows = await db
    .selectFrom("task_instance as ti")
    .select(["ti.run_id", "ti.task_id", "ti.state", "ti.try_number", "ti.start_date", "ti.end_date", "ti.duration", "ti.host"])
    // The run the latest try triggered (trigger_dag_run): a lookup on dag_run's partial parent index.
    .select(
      sql<GridCell["child"]>`(select json_build_object('dag_id', c.dag_id, 'dag_run_id', c.run_id, 'state', c.state) from dag_run c
        where c.parent_dag_id = ti.dag_id and c.parent_run_id = ti.run_id and c.parent_task_id = ti.task_id
        order by c.parent_try_number desc, c.id desc limit 1)`.as("child"),
    )
    .where("ti.dag_id", "=", dagId)
    .where("ti.run_id", "in", runIds)
    .execute();
  return rows.map((r) => ({
    run_id: r.run_id,
    task_id: r.task_id,
    state: r.state ?? "none",
    try_number: r.try_number,
    start_date: isoOrNull(r.start_date),
    end_date: isoOrNull(r.end_date),
    duration: r.duration,
    child: r.child,
    host: r.host,
  }));
}
