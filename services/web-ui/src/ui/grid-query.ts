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
    .selectFrom("task_instance")
    .select(["run_id", "task_id", "state", "try_number", "start_date", "end_date", "duration"])
    .where("dag_id", "=", dagId)
    .where("run_id", "in", runIds)
    .execute();
  return rows.map((r) => ({
    run_id: r.run_id,
    task_id: r.task_id,
    state: r.state ?? "none",
    try_number: r.try_number,
    start_date: isoOrNull(r.start_date),
    end_date: isoOrNull(r.end_date),
    duration: r.duration,
  }));
}
