import type { TriggerRule } from "@svc/dags";
import type { TaskState } from "@svc/db";

/** Counts of upstream task-instance states, as Airflow's TriggerRuleDep sees them. */
export interface UpstreamCounts {
  total: number;
  success: number;
  skipped: number;
  failed: number;
  upstreamFailed: number;
  /** success + skipped + failed + upstream_failed */
  done: number;
}

/** What a trigger rule says about a task whose own state is still none. */
export type RuleVerdict = "wait" | "run" | "skip" | "upstream_failed";

export function countUpstream(states: (TaskState | null)[]): UpstreamCounts {
  const c: UpstreamCounts = { total: states.length, success: 0, skipped: 0, failed: 0, upstreamFailed: 0, done: 0 };
  for (const s of states) {
    if (s === "success") c.success++;
    else if (s === "skipped") c.skipped++;
    else if (s === "failed") c.failed++;
    else if (s === "upstream_failed") c.upstreamFailed++;
  }
  c.done = c.success + c.skipped + c.failed + c.upstreamFailed;
  return c;
}

/**
 * Airflow 2 trigger-rule semantics (with flag_upstream_failed): decide as early as the outcome is
 * certain, otherwise wait for the upstream tasks to finish.
 */
export function evaluateTriggerRule(rule: TriggerRule, c: UpstreamCounts): RuleVerdict {
  if (c.total === 0 || rule === "always") return "run";
  const allDone = c.done === c.total;
  const anyFailed = c.failed + c.upstreamFailed > 0;
  switch (rule) {
    case "all_success":
      if (anyFailed) return "upstream_failed";
      if (c.skipped > 0) return "skip";
      return c.success === c.total ? "run" : "wait";
    case "all_failed":
      if (c.success + c.skipped > 0) return "skip";
      return allDone ? "run" : "wait";
    case "all_done":
      return allDone ? "run" : "wait";
    case "one_success":
      if (c.success > 0) return "run";
      if (!allDone) return "wait";
      return c.skipped === c.total ? "skip" : "upstream_failed";
    case "one_failed":
      if (anyFailed) return "run";
      return allDone ? "skip" : "wait";
    case "none_failed":
      if (anyFailed) return "upstream_failed";
      return allDone ? "run" : "wait";
    case "none_failed_min_one_success":
      if (anyFailed) return "upstream_failed";
      if (!allDone) return "wait";
      return c.success > 0 ? "run" : "skip";
    case "none_skipped":
      if (c.skipped > 0) return "skip";
      return allDone ? "run" : "wait";
    default: {
      const never: never = rule;
      throw new Error(`unknown trigger rule ${String(never)}`);
    }
  }
}

const OTHER_STATES: (TaskState | null)[] = ["success", "skipped", "failed", "upstream_failed", null];

/**
 * Whether one upstream's success can never change the rule's verdict while another upstream is
 * still unfinished, whatever the rest are: then a task with this rule waits for its last upstream,
 * and an evaluation after any other upstream's success decides nothing about it. Checked against
 * evaluateTriggerRule itself, over every state of one or two other upstreams with one unfinished.
 */
export function successWaitsForOthers(rule: TriggerRule): boolean {
  const others: (TaskState | null)[][] = [[null], ...OTHER_STATES.map((s) => [null, s])];
  return others.every((o) => evaluateTriggerRule(rule, countUpstream([...o, "success"])) === evaluateTriggerRule(rule, countUpstream([...o, null])));
}
