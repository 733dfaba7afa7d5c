/**
 * Flow statuses. Transitions (who moves them):
 *   pending → planning (orchestrator picks the job up); a new flow routed offline from its job's
 *     copy of the row goes from pending to planning's outcome in one write
 *   planning → rejected | needs_input | awaiting_approval | in_progress | failed (orchestrator phases)
 *   awaiting_approval → approved (POST approve) → in_progress | failed (orchestrator)
 *   awaiting_approval | needs_input → cancelled (POST cancel)
 *   in_progress → completed | failed (the DAG run finished)
 */
export const FLOW_STATUSES = ["pending", "planning", "needs_input", "awaiting_approval", "approved", "in_progress", "completed", "failed", "rejected", "cancelled"] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/** The phases of a flow, in order. */
export const PHASES = ["dag_discovery", "dag_validation", "dag_execution"] as const;
export type Phase = (typeof PHASES)[number];

/** Statuses the orchestrator still has work for (a lost job is re-enqueued for these). */
export const ACTIVE_PLANNING_STATUSES: readonly FlowStatus[] = ["pending", "planning", "approved"];

/** Statuses that wait for the user. */
export const WAITING_STATUSES: readonly FlowStatus[] = ["needs_input", "awaiting_approval"];

/** Statuses that never change again. */
export const FINAL_STATUSES: readonly FlowStatus[] = ["completed", "failed", "rejected", "cancelled"];

/** Statuses a cancel request may move to `cancelled`. */
export const CANCELLABLE_STATUSES: readonly FlowStatus[] = ["awaiting_approval", "needs_input"];

/** Whether the flow will not change any more (the SSE stream ends on these). */
export function isFinalStatus(s: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(s);
}

/** Whether the flow is waiting for the user or finished: nothing more happens without a request. */
export function isSettledStatus(s: string): boolean {
  return isFinalStatus(s) || (WAITING_STATUSES as readonly string[]).includes(s);
}
