import { tasksIn } from "./task-states";

/** What looks wrong, and what to do about it, as an agent reads it (the MCP tools' vocabulary). */
export interface Findings {
  concerns: string[];
  recommendations: string[];
}

/** A run as the concern checks read it. */
export interface ConcernRun {
  run_id: string;
  state: string | null;
}

/** A task instance as the concern checks read it. */
export interface ConcernTask {
  task_id: string;
  state: string | null;
}

/** What looks wrong with a DAG, and what to do about it. */
export function dagConcerns(dag: { is_paused: boolean }, recent: readonly ConcernRun[], importError: string | null): Findings {
  const concerns: string[] = [];
  const recommendations: string[] = [];
  if (importError !== null) {
    concerns.push(`the DAG file fails to import: ${importError.slice(0, 200)}`);
    recommendations.push("fix the DAG file (list_import_errors shows the full error); runs cannot be triggered until then");
  }
  if (dag.is_paused) {
    concerns.push("the DAG is paused: queued and scheduled runs do not start");
    recommendations.push("call unpause_dag before triggering");
  }
  const failed = recent.filter((r) => r.state === "failed");
  if (failed.length) {
    concerns.push(`${failed.length} of the last ${recent.length} run(s) failed`);
    recommendations.push(`call diagnose_dag_run with run_id ${failed[0]!.run_id}`);
  }
  const queued = recent.filter((r) => r.state === "queued");
  if (queued.length && !dag.is_paused) concerns.push(`${queued.length} run(s) queued: check get_system_health for the scheduler`);
  return { concerns, recommendations };
}

/** What looks wrong with one run, and what to do about it. */
export function runConcerns(run: ConcernRun, tasks: readonly ConcernTask[], dagPaused: boolean): Findings {
  const concerns: string[] = [];
  const recommendations: string[] = [];
  const { failed, upstream, retrying } = tasksIn(tasks);
  if (failed.length) {
    concerns.push(`${failed.length} task(s) failed: ${failed.map((t) => t.task_id).join(", ")}`);
    recommendations.push("read the failed tasks' log tails; after fixing the cause, call clear_task_instances for this run to retry them");
  }
  if (upstream.length) concerns.push(`${upstream.length} task(s) did not run because an upstream task failed`);
  if (retrying.length) concerns.push(`${retrying.length} task(s) waiting to retry: ${retrying.map((t) => t.task_id).join(", ")}`);
  if (run.state === "queued" && dagPaused) {
    concerns.push("the run is queued and the DAG is paused: it will not start");
    recommendations.push("call unpause_dag");
  }
  if (run.state === "success" && !concerns.length) recommendations.push("nothing to do: the run succeeded");
  return { concerns, recommendations };
}
