import { commands } from "./commands";
import { errorLines, logTail } from "./error-lines";
import { tasksIn } from "./task-states";

/** A DAG run as the observer needs it. */
export interface ObservedRun {
  run_id: string;
  state: string;
  start_date?: string | null;
  end_date?: string | null;
}

/** A task instance as the observer needs it (state per Airflow 2; null means not scheduled yet). */
export interface ObservedTask {
  task_id: string;
  state: string | null;
  try_number: number;
  operator?: string;
}

/** Input of observeRun: the latest run, its task instances and their log tails. */
export interface ObserveInput {
  dagId: string;
  run?: ObservedRun | null;
  tasks: readonly ObservedTask[];
  logTails: Record<string, string[]>;
  workflowUiUrl: string;
}

/** Something worth a human's attention. */
export interface Concern {
  severity: "error" | "warning";
  task_id?: string;
  message: string;
  log_tail?: string[];
  error_lines?: string[];
}

/** The observation returned by /orchestrator/observe. */
export interface Observation {
  overall_status: "running" | "success" | "failed" | "pending";
  summary: string;
  progress_percent: number;
  recommendations: string[];
  concerns: Concern[];
  task_counts: Record<string, number>;
}

/** States after which a task will not run again in this run; skipped counts, so branched runs reach 100%. */
const DONE = new Set(["success", "failed", "skipped", "upstream_failed"]);

function statusOf(runState: string): Observation["overall_status"] {
  switch (runState) {
    case "running":
      return "running";
    case "success":
      return "success";
    case "failed":
      return "failed";
    default:
      return "pending"; // queued, or a state this version does not know yet
  }
}

function countStates(tasks: readonly ObservedTask[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of tasks) counts[t.state ?? "none"] = (counts[t.state ?? "none"] ?? 0) + 1;
  return counts;
}

/** Turns a run, its task instances and log tails into status, progress, concerns and concrete next steps. */
export function observeRun(input: ObserveInput): Observation {
  const { dagId, run, tasks, logTails, workflowUiUrl } = input;
  const grid = commands.gridUrl(workflowUiUrl, dagId);
  if (!run) {
    return {
      overall_status: "pending",
      summary: `No DAG runs found for ${dagId}`,
      progress_percent: 0,
      concerns: [],
      task_counts: {},
      recommendations: [`Trigger a run: ${commands.trigger(dagId)} (unpause first if paused: ${commands.unpause(dagId)})`, `Watch it in the grid: ${grid}`],
    };
  }
  const overall = statusOf(run.state);
  const counts = countStates(tasks);
  const done = tasks.filter((t) => t.state !== null && DONE.has(t.state)).length;
  const finished = overall === "success" || overall === "failed";
  const progress = finished ? 100 : tasks.length === 0 ? 0 : Math.round((done / tasks.length) * 100);
  const concerns: Concern[] = [];
  const recommendations: string[] = [];
  const by = tasksIn(tasks);

  for (const t of by.failed) {
    const lines = logTails[t.task_id] ?? [];
    const errs = errorLines(lines);
    concerns.push({
      severity: "error",
      task_id: t.task_id,
      message: `Task ${t.task_id} failed on try ${t.try_number}${errs.length ? `: ${errs[errs.length - 1]}` : ""}`,
      log_tail: logTail(lines),
      error_lines: errs,
    });
    recommendations.push(
      `Task ${t.task_id}${t.operator ? ` (${t.operator})` : ""} failed: read its log with ${commands.taskLogs(dagId, run.run_id, t.task_id, t.try_number)}`,
      `After fixing the cause, clear and retry it: ${commands.clearTask(dagId, run.run_id, t.task_id)}`,
    );
  }
  for (const t of by.retrying) {
    const lines = logTails[t.task_id] ?? [];
    concerns.push({
      severity: "warning",
      task_id: t.task_id,
      message: `Task ${t.task_id} failed try ${t.try_number} and is waiting to retry`,
      log_tail: logTail(lines),
      error_lines: errorLines(lines),
    });
    recommendations.push(`Task ${t.task_id} is retrying; its last try's log: ${commands.taskLogs(dagId, run.run_id, t.task_id, t.try_number)}`);
  }
  const upstream = by.upstream.map((x) => x.task_id);
  if (upstream.length > 0) concerns.push({ severity: "warning", message: `${upstream.length} task(s) did not run because an upstream task failed: ${upstream.join(", ")}` });
  if (overall === "failed" && by.failed.length === 0) {
    concerns.push({ severity: "error", message: `Run ${run.run_id} failed without a failed task (timed out, or marked failed by hand)` });
  }
  if (concerns.length > 0 || overall !== "success") recommendations.push(`See the run in the grid: ${grid}`);

  const parts = [`Run ${run.run_id} of ${dagId} is ${run.state}`, `${done}/${tasks.length} tasks done (${progress}%)`];
  const failed = counts.failed ?? 0;
  if (failed > 0) parts.push(`${failed} failed`);
  if (counts.running) parts.push(`${counts.running} running`);
  if (counts.up_for_retry) parts.push(`${counts.up_for_retry} waiting to retry`);
  return { overall_status: overall, summary: `${parts.join(", ")}.`, progress_percent: progress, recommendations, concerns, task_counts: counts };
}
