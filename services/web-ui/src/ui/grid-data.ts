import type { ApiDagRun, ApiTaskInstance, EngineApi } from "@svc/engine";

/** Runs shown in the grid (newest ones), like Airflow's default of 25. */
export const GRID_RUNS = 25;

/** Every task instance of one run: the first page tells the total, the other pages are read in parallel. */
export async function runTaskInstances(api: EngineApi, dagId: string, runId: string): Promise<ApiTaskInstance[]> {
  const first = await api.listTaskInstances(dagId, runId, { limit: 10_000 });
  const pageSize = first.task_instances.length;
  if (!pageSize || pageSize >= first.total_entries) return first.task_instances;
  const offsets: number[] = [];
  for (let o = pageSize; o < first.total_entries; o += pageSize) offsets.push(o);
  const rest = await Promise.all(offsets.map((offset) => api.listTaskInstances(dagId, runId, { limit: pageSize, offset })));
  return [...first.task_instances, ...rest.flatMap((p) => p.task_instances)];
}

/** The newest runs of a DAG, oldest first (grid column order). */
export async function gridRuns(api: EngineApi, dagId: string, limit = GRID_RUNS): Promise<ApiDagRun[]> {
  return (await api.listDagRuns({ dag_id: dagId, order_by: "-execution_date", limit })).dag_runs.reverse();
}

/** What the grid's squares and hover text need of a task instance. */
/** A run as the grid page embeds it and its event stream sends it (the fields the page's script reads). */
export const runView = (r: ApiDagRun) => ({
  dag_run_id: r.dag_run_id,
  state: r.state,
  run_type: r.run_type,
  logical_date: r.logical_date,
  start_date: r.start_date,
  end_date: r.end_date,
  conf: r.conf,
  note: r.note,
  external_trigger: r.external_trigger,
  triggered_by: r.triggered_by,
});

export interface GridCell {
  run_id: string;
  task_id: string;
  state: string;
  try_number: number;
  start_date: string | null;
  end_date: string | null;
  duration: number | null;
  /** The run this task's latest try triggered (operator trigger_dag_run), if any. */
  child: { dag_id: string; dag_run_id: string; state: string } | null;
  /** The hypervisor host the task was routed to (several-host installs), else null. */
  host: string | null;
}

/** The host of a task instance from its Airflow queue (`tasks@<host>`), else null. */
const hostOfQueue = (queue: string): string | null => (queue.startsWith("tasks@") ? queue.slice("tasks@".length) : null);

const latestChild = (runs: ApiTaskInstance["triggered_dag_runs"]): GridCell["child"] => {
  const r = runs[runs.length - 1];
  return r ? { dag_id: r.dag_id, dag_run_id: r.dag_run_id, state: r.state } : null;
};

export const toCell = (t: ApiTaskInstance): GridCell => ({
  run_id: t.dag_run_id,
  task_id: t.task_id,
  state: t.state ?? "none",
  try_number: t.try_number,
  start_date: t.start_date,
  end_date: t.end_date,
  duration: t.duration,
  child: latestChild(t.triggered_dag_runs),
  host: t.queue ? hostOfQueue(t.queue) : null,
});

/** Hover text of a square: task, state, try, times (UTC), its host and the run it triggered. */
export function cellTitle(c: GridCell): string {
  const parts = [`${c.task_id} ${c.state}`, `try ${Math.max(1, c.try_number)}`];
  if (c.start_date) parts.push(`started ${c.start_date.slice(0, 19).replace("T", " ")}`);
  if (c.end_date) parts.push(`ended ${c.end_date.slice(11, 19)}`);
  if (c.duration !== null) parts.push(`${c.duration.toFixed(1)} s`);
  if (c.host) parts.push(`on host ${c.host}`);
  if (c.child) parts.push(`triggered ${c.child.dag_id} / ${c.child.dag_run_id} (${c.child.state})`);
  return parts.join(" · ");
}

/** Reads the squares of some runs of a DAG. */
export type CellLoader = (dagId: string, runIds: string[]) => Promise<GridCell[]>;

/** Squares through the engine API (paged per run); used when the UI has no direct database handle. */
export const apiCellLoader =
  (api: EngineApi): CellLoader =>
  async (dagId, runIds) =>
    (await Promise.all(runIds.map((r) => runTaskInstances(api, dagId, r)))).flat().map(toCell);
