import { sql } from "kysely";
import type { Db } from "@svc/db";

/** What a run dot on the DAG list needs. */
export interface RunDot {
  dag_id: string;
  dag_run_id: string;
  state: string;
}

/** The newest `perDag` runs of each DAG (newest first) in one read, for the DAG list's dots. */
export async function recentRunsFromDb(db: Db, dagIds: string[], perDag: number): Promise<Map<string, RunDot[]>> {
  const out = new Map<string, RunDot[]>(dagIds.map((d) => [d, []]));
  if (!dagIds.length) return out;
  const { rows } = await sql<{ dag_id: string; run_id: string; state: string }>`
    select dag_id, run_id, state from (
      select dag_id, run_id, state, logical_date, row_number() over (partition by dag_id order by logical_date desc) as n
      from dag_run where dag_id = any(${dagIds})
    ) r where n <= ${perDag} order by dag_id, logical_date desc`.execute(db);
  for (const r of rows) out.get(r.dag_id)?.push({ dag_id: r.dag_id, dag_run_id: r.run_id, state: r.state });
  return out;
}
