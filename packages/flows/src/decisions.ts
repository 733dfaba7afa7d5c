import type { FlowRow } from "@svc/db";
import { ConflictError, ForbiddenError } from "@svc/errors";
import { ACTION_ROLES } from "@svc/http/roles";
import { approvalOf, roleMeets } from "./pipeline/approval-needs";
import { CANCELLABLE_STATUSES } from "./flow-status";
import type { FlowStore } from "./flow-store";

/**
 * Approve a flow waiting for approval: awaiting_approval → approved (the orchestrator then runs
 * dag_execution). 404 for an unknown flow, 409 for any other status, 403 when the approver's role
 * is below the one the flow needs (a param reserved for admin); exactly one approval wins.
 */
export async function approveFlow(store: FlowStore, flowId: string, actor: string, role: string): Promise<FlowRow> {
  const current = await store.require(flowId);
  const { requiredRole, needs } = approvalOf(current);
  if (current.status === "awaiting_approval" && !roleMeets(role, requiredRole)) {
    const reserved = needs.filter((n) => n.kind === "min_role" && n.min_role === requiredRole).map((n) => `params.${n.param}`);
    throw new ForbiddenError(`Approving flow ${flowId} needs the role '${requiredRole}' or above (${reserved.join(", ") || "the flow asks for it"}); '${actor}' has '${role}'`, {
      required_role: requiredRole,
    });
  }
  const approval = { ...(current.approval ?? {}), approved_by: actor, approver_role: role, approved_at: new Date().toISOString() };
  const row = await store.update(flowId, { status: "approved", approval, next_steps: [] }, ["awaiting_approval"]);
  if (!row) {
    const now = await store.require(flowId);
    throw new ConflictError(`Flow ${flowId} is ${now.status}; only a flow in awaiting_approval can be approved`);
  }
  await store.audit(actor, "flow.approved", flowId, { dag_id: row.dag_id });
  return row;
}

/** Who acts on a flow: the actor's name and role. */
export interface FlowCaller {
  actor: string;
  role: string;
}

/**
 * Only the flow's creator (who submitted the intent), or an op and above, answers or cancels it:
 * 403 for anyone else, before anything changes. A flow without a recorded creator is an op's.
 */
export function assertFlowOwner(flow: Pick<FlowRow, "flow_id" | "created_by">, caller: FlowCaller, what: "answer" | "cancel"): void {
  const anyFlow = ACTION_ROLES.answer_any_flow;
  if (roleMeets(caller.role, anyFlow) || (flow.created_by !== null && flow.created_by === caller.actor)) return;
  throw new ForbiddenError(`Only the caller who submitted flow ${flow.flow_id}, or an ${anyFlow} and above, may ${what} it`, { required_role: anyFlow });
}

/** Cancel a flow that waits for the user (awaiting_approval or needs_input): its creator or an op; 403 for others, 409 in any other status. */
export async function cancelFlow(store: FlowStore, flowId: string, caller: FlowCaller, reason?: string): Promise<FlowRow> {
  const { actor } = caller;
  const current = await store.require(flowId);
  assertFlowOwner(current, caller, "cancel");
  const approval = { ...(current.approval ?? {}), cancelled_by: actor, cancelled_at: new Date().toISOString() };
  const row = await store.update(
    flowId,
    { status: "cancelled", approval, summary: `Cancelled${reason ? `: ${reason}` : ""}. Nothing was run.`, next_steps: [], phases_skipped: ["dag_execution"] },
    CANCELLABLE_STATUSES,
  );
  if (!row) {
    const now = await store.require(flowId);
    throw new ConflictError(`Flow ${flowId} is ${now.status}; only a flow in ${CANCELLABLE_STATUSES.join(" or ")} can be cancelled`);
  }
  await store.audit(actor, "flow.cancelled", flowId, { dag_id: row.dag_id, reason: reason ?? null });
  return row;
}
