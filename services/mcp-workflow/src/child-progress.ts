import type { ApiTaskInstance, EngineApi } from "@svc/engine";
import { FINISHED_TASK_STATES } from "./shapes";

/** A run a waiting task triggered (operator trigger_dag_run), and how far it has got. */
export interface ChildProgress {
  /** The parent's task that waits for it. */
  task_id: string;
  dag_id: string;
  run_id: string;
  done: number;
  total: number;
  /** The child's task that finished last seen, with its state ("" before any). */
  last: string;
}

/**
 * The children of the parent's unfinished tasks: for each, the run its current try triggered and
 * how many of that run's tasks have finished. A parent of product DAGs (a lab) shows its progress
 * through them this way, between its own tasks' ends.
 */
export async function childProgress(api: EngineApi, parentTis: ApiTaskInstance[]): Promise<ChildProgress[]> {
  const waiting = parentTis.flatMap((t) => {
    if (t.state !== null && FINISHED_TASK_STATES.has(t.state)) return [];
    const child = (t.triggered_dag_runs ?? []).filter((r) => r.try_number === t.try_number).at(-1);
    return child ? [{ task_id: t.task_id, child }] : [];
  });
  return Promise.all(
    waiting.map(async ({ task_id, child }) => {
      const tis = (await api.listTaskInstances(child.dag_id, child.dag_run_id, { limit: 10_000 })).task_instances;
      const finished = tis.filter((t) => t.state !== null && FINISHED_TASK_STATES.has(t.state)).sort((a, b) => String(a.end_date).localeCompare(String(b.end_date)));
      const last = finished.at(-1);
      return { task_id, dag_id: child.dag_id, run_id: child.dag_run_id, done: finished.length, total: tis.length, last: last ? `${last.task_id} ${last.state}` : "" };
    }),
  );
}

export const describeChild = (c: ChildProgress) => `${c.task_id}: ${c.dag_id} ${c.done}/${c.total} tasks done${c.last ? ` (${c.last})` : ""}`;
