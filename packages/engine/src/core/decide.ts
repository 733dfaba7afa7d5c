import type { DagDefinition, TaskDefinition } from "@svc/dags";
import type { DagRunState, TaskState } from "@svc/db";
import { countUpstream, evaluateTriggerRule } from "./trigger-rules";

/** The scheduler's view of one task instance. */
export interface TiView {
  task_id: string;
  state: TaskState | null;
  try_number: number;
  next_retry_at: Date | null;
}

export interface RunDecision {
  /**
   * Tries to enqueue now: state becomes queued with this try number. `reschedule`: a try that was
   * up_for_reschedule runs again as the same try (its try number unchanged).
   */
  queue: { task_id: string; try_number: number; reschedule?: true }[];
  skip: string[];
  upstreamFailed: string[];
  /** The run state after applying the decision. */
  runState: Extract<DagRunState, "running" | "success" | "failed">;
  /** Earliest future retry time: the scheduler must evaluate the run again then. */
  wakeAt: Date | null;
}

const FINISHED = new Set<TaskState | null>(["success", "failed", "skipped", "upstream_failed"]);
export const isFinished = (s: TaskState | null): boolean => FINISHED.has(s);

/**
 * Pure scheduling decision for one running run. Applies skip/upstream_failed propagation to a
 * fixpoint, so one evaluation settles every task whose fate is already certain.
 * `when(task)` evaluates the task's condition (true when it has none).
 */
export function decideRun(dag: Pick<DagDefinition, "tasks">, tis: TiView[], now: Date, when: (task: TaskDefinition) => boolean): RunDecision {
  const state = new Map<string, TaskState | null>(tis.map((t) => [t.task_id, t.state]));
  const tiById = new Map(tis.map((t) => [t.task_id, t]));
  const decision: RunDecision = { queue: [], skip: [], upstreamFailed: [], runState: "running", wakeAt: null };

  for (let changed = true; changed;) {
    changed = false;
    for (const task of dag.tasks) {
      const ti = tiById.get(task.task_id);
      if (!ti || state.get(task.task_id) !== null) continue;
      const verdict = evaluateTriggerRule(task.trigger_rule, countUpstream(task.depends_on.map((d) => state.get(d) ?? null)));
      if (verdict === "wait") continue;
      if (verdict === "run") {
        if (when(task)) {
          decision.queue.push({ task_id: task.task_id, try_number: ti.try_number + 1 });
          state.set(task.task_id, "queued");
        } else {
          decision.skip.push(task.task_id);
          state.set(task.task_id, "skipped");
          changed = true;
        }
      } else if (verdict === "skip") {
        decision.skip.push(task.task_id);
        state.set(task.task_id, "skipped");
        changed = true;
      } else {
        decision.upstreamFailed.push(task.task_id);
        state.set(task.task_id, "upstream_failed");
        changed = true;
      }
    }
  }

  for (const ti of tis) {
    if (ti.state !== "up_for_retry" && ti.state !== "up_for_reschedule") continue;
    if (!ti.next_retry_at || ti.next_retry_at <= now) {
      decision.queue.push(
        ti.state === "up_for_retry" ? { task_id: ti.task_id, try_number: ti.try_number + 1 } : { task_id: ti.task_id, try_number: ti.try_number, reschedule: true },
      );
      state.set(ti.task_id, "queued");
    } else if (!decision.wakeAt || ti.next_retry_at < decision.wakeAt) {
      decision.wakeAt = ti.next_retry_at;
    }
  }

  decision.runState = runStateOf(dag, state);
  return decision;
}

/** Airflow's rule: when every task is finished, the run fails if any leaf failed or upstream_failed. */
export function runStateOf(dag: Pick<DagDefinition, "tasks">, state: Map<string, TaskState | null>): RunDecision["runState"] {
  for (const s of state.values()) if (!isFinished(s)) return "running";
  const hasDownstream = new Set(dag.tasks.flatMap((t) => t.depends_on));
  const leaves = dag.tasks.filter((t) => !hasDownstream.has(t.task_id));
  const bad = leaves.some((t) => {
    const s = state.get(t.task_id);
    return s === "failed" || s === "upstream_failed";
  });
  return bad ? "failed" : "success";
}
