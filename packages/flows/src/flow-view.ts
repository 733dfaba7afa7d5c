import type { FlowRow } from "@svc/db";

/** Something the user can do next with this flow, as a concrete HTTP call. */
export interface UserAction {
  action: "approve" | "cancel" | "resubmit" | "answer" | "observe";
  method: "GET" | "POST";
  path: string;
  description: string;
}

/** One field a needs_input flow asks for. */
export interface InputRequestView {
  field: string;
  rule: string;
  question: string;
  given?: string;
}

/** The flow as the API returns it. */
export interface FlowView {
  flow_id: string;
  status: string;
  intent: string;
  dag_id: string | null;
  execution_id: string;
  run_id: string | null;
  params: Record<string, unknown>;
  phases_completed: string[];
  phases_skipped: string[];
  summary: string | null;
  next_steps: string[];
  user_actions: UserAction[];
  missing_params: string[];
  /** How the intent was routed: ready, needs_input or rejected (null before routing). */
  route_status: "ready" | "needs_input" | "rejected" | null;
  /** needs_input: the question to ask the user (null otherwise). */
  question: string | null;
  /** needs_input: each field to answer, with the rule it must follow and the value given, if any. */
  input_requests: InputRequestView[];
  warnings: string[];
  router: Record<string, unknown>;
  approval: Record<string, unknown> | null;
  /**
   * Where the VMs the run would create would go, by the hosts' last probes (@svc/hosts
   * PlacementPreview): the chosen or pinned host, each host's verdict, or "no host fits". Null when
   * the plan creates no VM or the install has only the local host.
   */
  placement: Record<string, unknown> | null;
  workflow_ui_url: string | null;
  status_endpoint: string;
  error_message: string | null;
  created_at: string;
  timestamp: string;
}

/** Where the flow's status lives. */
export const statusEndpointOf = (flowId: string): string => `/orchestrator/flows/${flowId}`;

/** The grid view of a DAG in the workflow UI. */
export const workflowUiUrlOf = (workflowUiUrl: string, dagId: string): string => `${workflowUiUrl.replace(/\/+$/, "")}/dags/${encodeURIComponent(dagId)}/grid`;

function userActionsOf(row: FlowRow): UserAction[] {
  const base = statusEndpointOf(row.flow_id);
  switch (row.status) {
    case "awaiting_approval":
      return [
        { action: "approve", method: "POST", path: `${base}/approve`, description: `Run ${row.dag_id} with the params shown` },
        { action: "cancel", method: "POST", path: `${base}/cancel`, description: "Drop this flow; nothing runs" },
      ];
    case "needs_input":
      return [
        { action: "resubmit", method: "POST", path: "/orchestrator/intent", description: `Send the intent again with params for: ${row.missing_params.join(", ")}` },
        {
          action: "answer",
          method: "POST",
          path: `${base}/answer`,
          description: `Answer with {"answer": "..."} or {"params": {...}} for: ${row.missing_params.join(", ")}`,
        },
        { action: "cancel", method: "POST", path: `${base}/cancel`, description: "Drop this flow" },
      ];
    case "in_progress":
      return [
        {
          action: "observe",
          method: "POST",
          path: `/orchestrator/observe?dag_id=${encodeURIComponent(row.dag_id ?? "")}&run_id=${encodeURIComponent(row.run_id ?? "")}`,
          description: "Progress of the run",
        },
      ];
    default:
      return [];
  }
}

/** What a needs_input flow asks: the router's questions, or one per missing param. */
function inputRequestsOf(row: FlowRow): InputRequestView[] {
  if (row.status !== "needs_input") return [];
  const missing = row.missing_params ?? [];
  const asked = ((row.router as { input?: InputRequestView[] } | null)?.input ?? []).filter((i) => missing.includes(i.field));
  const rest = missing.filter((f) => !asked.some((i) => i.field === f)).map((f) => ({ field: f, rule: `${f} is required`, question: `Which value should ${f} have?` }));
  return [...asked, ...rest];
}

function routeStatusOf(row: FlowRow): FlowView["route_status"] {
  const s = (row.router as { status?: unknown } | null)?.status;
  if (s === "ready" || s === "needs_input" || s === "rejected") return row.status === "needs_input" ? "needs_input" : s;
  return row.status === "rejected" && !row.dag_id ? "rejected" : null;
}

/** A flow row as the API's flow JSON. */
export function toFlowView(row: FlowRow, workflowUiUrl: string): FlowView {
  return {
    flow_id: row.flow_id,
    status: row.status,
    intent: row.intent,
    dag_id: row.dag_id,
    execution_id: row.execution_id,
    run_id: row.run_id,
    params: row.params ?? {},
    phases_completed: row.phases_completed ?? [],
    phases_skipped: row.phases_skipped ?? [],
    summary: row.summary,
    next_steps: row.next_steps ?? [],
    user_actions: userActionsOf(row),
    missing_params: row.missing_params ?? [],
    route_status: routeStatusOf(row),
    question: inputRequestsOf(row)[0]?.question ?? null,
    input_requests: inputRequestsOf(row),
    warnings: row.warnings ?? [],
    router: row.router ?? {},
    approval: row.approval ?? null,
    placement: row.placement ?? null,
    workflow_ui_url: row.dag_id ? workflowUiUrlOf(workflowUiUrl, row.dag_id) : null,
    status_endpoint: statusEndpointOf(row.flow_id),
    error_message: row.error_message,
    created_at: new Date(row.created_at).toISOString(),
    timestamp: new Date(row.updated_at).toISOString(),
  };
}
