import { acceptedContent, inputRequired, type InputRequiredResult, type RequestStateCodec } from "@modelcontextprotocol/server";
import type { ToolContext } from "@svc/mcp";
import type { AssistantClient } from "./assistant-client";
import { type FlowSummary, flowSummary } from "./flow-shape";

/** What submit_intent carries between rounds (signed, so a client cannot point it at another flow). */
export interface IntentRoundState {
  flow_id: string;
  round: number;
}

/** Rounds of questions one submit_intent asks at most before handing the question back. */
const MAX_ROUNDS = 3;
const ANSWER_KEY = "missing_values";

export const needsInput = (f: FlowSummary) => f.status === "needs_input" || f.route_status === "needs_input";
export const flowPath = (id: string, action = "") => `/orchestrator/flows/${encodeURIComponent(id)}${action}`;

/** The form asking for what the flow misses: one string field per missing param, with its rule. */
function formFor(flow: FlowSummary) {
  const asks = flow.input_requests.length ? flow.input_requests : flow.missing_params.map((field) => ({ field, rule: "", question: `Value for ${field}?` }));
  const properties = Object.fromEntries(asks.map((r) => [r.field, { type: "string" as const, title: r.field, description: [r.question, r.rule].filter(Boolean).join(" ") }]));
  return {
    message: flow.question ?? `The workflow needs: ${asks.map((r) => r.field).join(", ")}`,
    requestedSchema: { type: "object" as const, properties, required: asks.map((r) => r.field) },
  };
}

/**
 * One entry of submit_intent. First round: submit the intent. Later rounds (the client answered
 * the form): give the answer to the flow. While the flow still needs input and the client can
 * show a form, ask it (MCP elicitation as an input_required result; the SDK pushes it as a
 * request to 2025 clients); otherwise the flow is returned with its question.
 */
export async function intentRound(
  api: AssistantClient,
  codec: RequestStateCodec<IntentRoundState>,
  ctx: ToolContext,
  submit: () => Promise<unknown>,
): Promise<{ flow: FlowSummary; elicited: boolean } | InputRequiredResult> {
  const state = ctx.sdk.mcpReq.requestState<IntentRoundState>();
  let flow: FlowSummary;
  if (state?.flow_id) {
    const answers = acceptedContent<Record<string, unknown>>(ctx.sdk.mcpReq.inputResponses, ANSWER_KEY);
    // Declined or cancelled: stop asking; the flow keeps waiting and its question is returned.
    if (!answers) return { flow: flowSummary(await api.get(flowPath(state.flow_id))), elicited: false };
    const params = Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, String(v)]));
    flow = flowSummary(await api.post(flowPath(state.flow_id, "/answer"), { params }));
  } else {
    flow = flowSummary(await submit());
  }
  const round = (state?.round ?? 0) + 1;
  const canAsk = ctx.clientCapabilities?.elicitation !== undefined;
  if (needsInput(flow) && canAsk && round <= MAX_ROUNDS && (flow.input_requests.length || flow.missing_params.length)) {
    return inputRequired({
      inputRequests: { [ANSWER_KEY]: inputRequired.elicit(formFor(flow)) },
      requestState: await codec.mint({ flow_id: flow.flow_id, round }),
    });
  }
  return { flow, elicited: state !== undefined };
}
