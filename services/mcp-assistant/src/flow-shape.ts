import { z } from "zod";

/** A flow as the tools answer it: the fields an agent acts on (unknown extra API fields are dropped). */
export const FlowSummary = z.object({
  flow_id: z.string(),
  status: z.string(),
  route_status: z.string().nullable().describe("ready | needs_input | rejected, or null before routing"),
  intent: z.string(),
  dag_id: z.string().nullable(),
  run_id: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  missing_params: z.array(z.string()),
  question: z.string().nullable().describe("needs_input: what to ask the user"),
  input_requests: z.array(z.object({ field: z.string(), rule: z.string(), question: z.string() })),
  summary: z.string().nullable(),
  next_steps: z.array(z.string()),
  error_message: z.string().nullable(),
  workflow_ui_url: z.string().nullable(),
});
export type FlowSummary = z.infer<typeof FlowSummary>;

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** Tolerant mapping of the API's flow JSON (fields added later are ignored; missing ones get neutral values). */
export function flowSummary(raw: unknown): FlowSummary {
  const f = (raw ?? {}) as Record<string, unknown>;
  const requests = Array.isArray(f.input_requests) ? (f.input_requests as Record<string, unknown>[]) : [];
  return {
    flow_id: str(f.flow_id) ?? "",
    status: str(f.status) ?? "unknown",
    route_status: str(f.route_status),
    intent: str(f.intent) ?? "",
    dag_id: str(f.dag_id),
    run_id: str(f.run_id),
    params: f.params && typeof f.params === "object" ? (f.params as Record<string, unknown>) : {},
    missing_params: strs(f.missing_params),
    question: str(f.question),
    input_requests: requests.map((r) => ({ field: str(r.field) ?? "", rule: str(r.rule) ?? "", question: str(r.question) ?? "" })),
    summary: str(f.summary),
    next_steps: strs(f.next_steps).slice(0, 5),
    error_message: str(f.error_message),
    workflow_ui_url: str(f.workflow_ui_url),
  };
}

/** One line for the text rendering. */
export function flowLine(f: FlowSummary): string {
  const parts = [`flow ${f.flow_id}: ${f.status}`];
  if (f.dag_id) parts.push(`dag ${f.dag_id}`);
  if (f.run_id) parts.push(`run ${f.run_id}`);
  if (f.question) parts.push(`question: ${f.question}`);
  if (f.error_message) parts.push(`error: ${f.error_message}`);
  return parts.join("; ");
}
