import { isInputRequiredResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { mayDo } from "@svc/http";
import { defineTool, type ToolDef } from "@svc/mcp";
import type { AssistantToolDeps } from "../deps";
import { flowLine, FlowSummary, flowSummary } from "../flow-shape";
import { flowPath as path, intentRound, needsInput } from "../intent-rounds";

const flowId = z
  .string()
  .regex(/^flow-[A-Za-z0-9_-]{1,100}$/, "expected a flow id like flow-…")
  .describe("flow id returned by submit_intent");
const FlowResult = z.object({ flow: FlowSummary, elicited: z.boolean().describe("the missing values were asked of the user through the client") });
function render(flow: FlowSummary, mayApprove: boolean): string {
  const hint = needsInput(flow)
    ? "\nAsk the user, then call answer_flow with the value(s)."
    : flow.status === "awaiting_approval"
      ? mayApprove
        ? "\nCall approve_flow once the user agrees."
        : "\nIt waits for an operator's approval (the workflow UI or the assistant API)."
      : "";
  return `${flowLine(flow)}${hint}`;
}

const intentInput = {
  intent: z.string().trim().min(1).max(2000).describe("what the user wants, in plain words"),
  params: z.record(z.string(), z.unknown()).optional().describe("values for the chosen workflow's params"),
  auto_execute: z.boolean().default(true),
};
// Only a server whose role may approve offers it: for a lower role the field is not in the schema and never sent.
const approvingInput = { ...intentInput, auto_approve: z.boolean().default(false).describe("run workflows that create or delete VMs without asking") };

/** The intent path: submit, answer, approve, follow, observe. */
export function flowTools(d: AssistantToolDeps): ToolDef[] {
  const { api } = d;
  const mayApprove = mayDo(d.role, "approve_flow");
  const show = (flow: FlowSummary) => render(flow, mayApprove);
  return [
    defineTool({
      name: "submit_intent",
      title: "Submit an intent",
      description:
        "Turn a sentence into a workflow flow (picks and validates a DAG, runs it when allowed). When a value is missing the user is asked through the client if it supports elicitation; otherwise the question is returned.",
      tier: "write",
      action: "submit_intent",
      openWorld: true,
      input: z.object(mayApprove ? approvingInput : intentInput),
      output: FlowResult,
      async run(a: { intent: string; params?: Record<string, unknown>; auto_execute: boolean; auto_approve?: boolean }, ctx) {
        const autoApprove = mayApprove && a.auto_approve === true;
        const out = await intentRound(api, d.stateCodec, ctx, () =>
          api.post("/orchestrator/intent", { intent: a.intent, params: a.params, auto_approve: autoApprove, auto_execute: a.auto_execute }),
        );
        if (isInputRequiredResult(out)) return out;
        return { data: out, text: show(out.flow) };
      },
    }),
    defineTool({
      name: "answer_flow",
      title: "Answer a flow's question",
      description: "Give the values a needs_input flow asks for (see its question and input_requests); the flow then continues.",
      tier: "write",
      action: "answer_own_flow",
      openWorld: true,
      input: z.object({ flow_id: flowId, params: z.record(z.string(), z.unknown()).refine((p) => Object.keys(p).length > 0, "give at least one value") }),
      output: FlowResult,
      async run(a) {
        const flow = flowSummary(await api.post(path(a.flow_id, "/answer"), { params: a.params }));
        return { data: { flow, elicited: false }, text: show(flow) };
      },
    }),
    defineTool({
      name: "approve_flow",
      title: "Approve a flow",
      description: "Approve a flow that is awaiting approval, so its workflow runs.",
      tier: "write",
      action: "approve_flow",
      idempotent: true,
      openWorld: true,
      input: z.object({ flow_id: flowId }),
      output: FlowResult,
      async run(a) {
        const flow = flowSummary(await api.post(path(a.flow_id, "/approve")));
        return { data: { flow, elicited: false }, text: show(flow) };
      },
    }),
    defineTool({
      name: "get_flow",
      title: "One flow",
      description: "A flow's status, chosen DAG, run and any question it is waiting on.",
      tier: "read",
      action: "read",
      input: z.object({ flow_id: flowId }),
      output: FlowResult,
      async run(a) {
        const flow = flowSummary(await api.get(path(a.flow_id)));
        return { data: { flow, elicited: false }, text: show(flow) };
      },
    }),
    defineTool({
      name: "observe_dag",
      title: "Observe a DAG run",
      description: "How a DAG's run is going (the latest when run_id is omitted): status, progress, concerns and recommendations.",
      tier: "read",
      action: "submit_intent",
      input: z.object({ dag_id: z.string().min(1).max(250), run_id: z.string().min(1).max(250).optional() }),
      output: z.object({
        overall_status: z.string(),
        summary: z.string(),
        progress_percent: z.number(),
        task_counts: z.record(z.string(), z.number()),
        concerns: z.array(z.unknown()),
        recommendations: z.array(z.unknown()),
      }),
      async run(a) {
        const q = new URLSearchParams({ dag_id: a.dag_id, ...(a.run_id ? { run_id: a.run_id } : {}) });
        const o = (await api.post(`/orchestrator/observe?${q.toString()}`)) as Record<string, unknown>;
        const data = {
          overall_status: typeof o.overall_status === "string" ? o.overall_status : "unknown",
          summary: typeof o.summary === "string" ? o.summary : "",
          progress_percent: Number(o.progress_percent) || 0,
          task_counts: (o.task_counts ?? {}) as Record<string, number>,
          concerns: Array.isArray(o.concerns) ? o.concerns.slice(0, 10) : [],
          recommendations: Array.isArray(o.recommendations) ? o.recommendations.slice(0, 10) : [],
        };
        return { data, text: `${a.dag_id}: ${data.overall_status} (${data.progress_percent}%) ${data.summary}` };
      },
    }),
  ];
}
