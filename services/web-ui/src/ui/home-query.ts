import { sql } from "kysely";
import { nextRunAfter } from "@svc/dags";
import type { Db } from "@svc/db";

/** Recent runs shown as dots per DAG (newest last, like Airflow's "Runs" column). */
export const DOT_RUNS = 8;

/** What a run dot on the DAG list needs. */
export interface RunDot {
  dag_id: string;
  dag_run_id: string;
  state: string;
}

/** What the DAG list's live stream keeps current per DAG: switch, recent runs (newest first) and next run. */
export interface DagLiveState {
  dag_id: string;
  is_paused: boolean;
  next_run: string | null;
  runs: RunDot[];
}

/** When an active DAG's schedule fires next (ISO), or null when it is paused, manual-only or unparsable. */
export function nextRunOf(schedule: string | null | undefined, isPaused: boolean, now: Date): string | null {
  if (isPaused || !schedule) return null;
  try {
    return nextRunAfter(schedule, now)?.toISOString() ?? null;
  } catch {
    return null;
  }
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

/** Every active DAG's live state in one read: pause flag, schedule and its newest `perDag` runs. */
export async function dagLiveStatesFromDb(db: Db, perDag: number, now: Date): Promise<DagLiveState[]> {
  const { rows } = await sql<{ dag_id: string; is_paused: boolean; schedule: string | null; run_id: string | null; state: string | null }>`
    select d.dag_id, d.is_paused, d.schedule, r.run_id, r.state
    from dag d left join lateral (
      select run_id, state, logical_date from dag_run where dag_run.dag_id = d.dag_id order by logical_date desc limit ${perDag}
    ) r on true
    where d.is_active order by d.dag_id, r.logical_date desc`.execute(db);
  const out = new Map<string, DagLiveState>();
  for (const r of rows) {
    let d = out.get(r.dag_id);
    if (!d) out.set(r.dag_id, (d = { dag_id: r.dag_id, is_paused: r.is_paused, next_run: nextRunOf(r.schedule, r.is_paused, now), runs: [] }));
    if (r.run_id !== null && r.state !== null) d.runs.push({ dag_id: r.dag_id, dag_run_id: r.run_id, state: r.state });
  }
  return [...out.values()];
}
