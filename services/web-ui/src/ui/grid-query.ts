import { sql } from "kysely";
import type { Db } from "@svc/db";
import type { GridCell } from "./grid-data";

/**
 * A timestamp as the API writes it (isoDate: milliseconds, `+00:00`), formatted by Postgres: a
 * grid's 10,000 timestamps are not parsed into Dates only to be written out again.
 */
const iso = (column: string) => sql<string | null>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')`;

/**
 * The grid's squares of several runs in one indexed read (the REST API's paging would take dozens of
 * round trips for a 200-task × 25-run grid), and beside it the runs their tasks triggered (one read
 * of dag_run's partial parent index, not one lookup per square). Read-only; the same columns the
 * API serializes.
 */
export async function gridCellsFromDb(db: Db, dagId: string, runIds: string[]): Promise<GridCell[]> {
  if (!runIds.length) return [];
  const [rows, children] = await Promise.all([
    db
      .selectFrom("task_instance as ti")
      .select(["ti.run_id", "ti.task_id", "ti.state", "ti.try_number", iso("ti.start_date").as("start_date"), iso("ti.end_date").as("end_date"), "ti.duration", "ti.host"])
      .where("ti.dag_id", "=", dagId)
      .where("ti.run_id", "in", runIds)
      .execute(),
    // The run each task's latest try triggered (trigger_dag_run).
    db
      .selectFrom("dag_run as c")
      .distinctOn(["c.parent_run_id", "c.parent_task_id"])
      .select(["c.parent_run_id", "c.parent_task_id", "c.dag_id", "c.run_id", "c.state"])
      .where("c.parent_dag_id", "=", dagId)
      .where("c.parent_run_id", "in", runIds)
      .orderBy("c.parent_run_id")
      .orderBy("c.parent_task_id")
      .orderBy("c.parent_try_number", "desc")
      .orderBy("c.id", "desc")
      .execute(),
  ]);
  const child = new Map(children.map((c) => [`${c.parent_run_id}\n${c.parent_task_id}`, { dag_id: c.dag_id, dag_run_id: c.run_id, state: c.state }]));
  return rows.map((r) => ({
    run_id: r.run_id,
    task_id: r.task_id,
    state: r.state ?? "none",
    try_number: r.try_number,
    start_date: r.start_date,
    end_date: r.end_date,
    duration: r.duration,
    child: child.get(`${r.run_id}\n${r.task_id}`) ?? null,
    host: r.host,
  }));
}
