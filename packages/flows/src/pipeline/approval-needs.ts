import { restrictedParamsSet, restrictedWhat, roleReaches, type ParamRole, type RunRole } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import { ACTION_ROLES } from "@svc/http/roles";
import type { CatalogueDag } from "../catalogue";

/** Why a flow waits for approval, by kind: the DAG asks for it, the DAG is paused, a param reserved for a role (min_role) is set, a VM would bill a cloud account. */
export type ApprovalNeedKind = "dag" | "paused" | "min_role" | "cloud";

/** One reason a flow needs approval; `reason` is the text shown to people, `kind` what code matches on. */
export interface ApprovalNeed {
  kind: ApprovalNeedKind;
  reason: string;
  /** For min_role: the param and the role it needs. */
  param?: string;
  min_role?: ParamRole;
}

/** The role an approval needs: the one approve_flow names (op), or admin when a param set needs admin. */
export type ApproverRole = typeof ACTION_ROLES.approve_flow | "admin";

/** Whether `have` (a role name, possibly missing or unknown) is `need` or above. */
export function roleMeets(have: unknown, need: RunRole): boolean {
  return typeof have === "string" && roleReaches(have, need);
}

/** Everything running this DAG with these params needs approved, each with its kind. */
export function approvalNeeds(dag: CatalogueDag, params: Record<string, unknown>): ApprovalNeed[] {
  const needs: ApprovalNeed[] = [];
  if (dag.approval_reason) needs.push({ kind: "dag", reason: dag.approval_reason });
  if (dag.is_paused) needs.push({ kind: "paused", reason: `DAG ${dag.dag_id} is paused: approving runs this one run and leaves the DAG paused` });
  for (const p of restrictedParamsSet(dag.definition, params)) {
    needs.push({ kind: "min_role", reason: `${restrictedWhat(p, "params")} may only be set by the role '${p.minRole}' or above`, param: p.name, min_role: p.minRole });
  }
  return needs;
}

/** The lowest role that may approve these needs: approve_flow's (op), or the highest min_role among them. */
export function requiredApproverRole(needs: readonly ApprovalNeed[]): ApproverRole {
  return needs.some((n) => n.kind === "min_role" && n.min_role === "admin") ? "admin" : ACTION_ROLES.approve_flow;
}

/** A flow's stored approval, read defensively (jsonb; rows from before `needs` carry none). */
export interface ApprovalState {
  needs: ApprovalNeed[];
  requiredRole: ApproverRole;
  approvedBy: string | null;
  /** The role of whoever approved (the caller's, for auto_approve). */
  approverRole: string | null;
  /** The role of the caller who asked for auto_approve, recorded when the flow was created. */
  autoApproveRole: string | null;
}

/** The stored approval of a flow, with the role auto_approve stands for. */
export function approvalOf(flow: Pick<FlowRow, "approval" | "auto_approve">): ApprovalState {
  const a: Record<string, unknown> = flow.approval ?? {};
  const str = (v: unknown) => (typeof v === "string" && v ? v : null);
  const needs = Array.isArray(a.needs) ? (a.needs as ApprovalNeed[]).filter((n) => typeof n?.kind === "string") : [];
  return {
    needs,
    requiredRole: a.required_role === "admin" ? "admin" : ACTION_ROLES.approve_flow,
    approvedBy: str(a.approved_by),
    approverRole: str(a.approver_role),
    // A flow created with auto_approve by a caller of unknown role counts as an approver's (the API grants auto_approve to approve_flow's role and above only).
    autoApproveRole: flow.auto_approve ? (str(a.auto_approve_role) ?? ACTION_ROLES.approve_flow) : null,
  };
}

/** Whether the approval covers running one run while the DAG is paused: found by its kind, never by the reason's text. */
export function approvedWhilePaused(flow: Pick<FlowRow, "approval" | "auto_approve">): boolean {
  const a = approvalOf(flow);
  return a.approvedBy !== null && a.needs.some((n) => n.kind === "paused");
}
