import type { z } from "zod";
import { AUTH_SECURITY, openApiSchema as toSchema } from "@svc/http";
import * as S from "./schemas";

type Named = keyof typeof COMPONENTS;

/** Schemas published under components/schemas, by name. */
const COMPONENTS = {
  IntentRequest: { schema: S.IntentRequestSchema, io: "input" },
  CancelRequest: { schema: S.CancelRequestSchema, io: "input" },
  AnswerRequest: { schema: S.AnswerRequestSchema, io: "input" },
  ChatRequest: { schema: S.ChatRequestSchema, io: "input" },
  Flow: { schema: S.FlowSchema, io: "output" },
  Observation: { schema: S.ObservationSchema, io: "output" },
  Health: { schema: S.HealthSchema, io: "output" },
  Status: { schema: S.StatusSchema, io: "output" },
  DagList: { schema: S.DagListSchema, io: "output" },
  ChatResponse: { schema: S.ChatResponseSchema, io: "output" },
  Problem: { schema: S.ProblemSchema, io: "output" },
} as const;

interface Op {
  method: "get" | "post";
  path: string;
  summary: string;
  open?: boolean;
  body?: Named;
  query?: z.ZodObject;
  pathParams?: string[];
  /** status → component name (JSON), or a content type for non-JSON answers. */
  responses: Record<number, { description: string; schema?: Named; contentType?: string }>;
}

const problem = (description: string) => ({ description, schema: "Problem" as const, contentType: "application/problem+json" });
const flowOut = { description: "The flow", schema: "Flow" as const };

/** Every operation of the assistant API; the router and this table are reviewed together. */
export const OPERATIONS: Op[] = [
  {
    method: "get",
    path: "/health",
    summary: "Health of the assistant and its dependencies",
    open: true,
    responses: { 200: { description: "healthy or degraded", schema: "Health" }, 503: { description: "unhealthy (database or Redis down)", schema: "Health" } },
  },
  {
    method: "post",
    path: "/orchestrator/intent",
    summary: "Turn a request in plain words into a flow (discovery, validation, execution)",
    body: "IntentRequest",
    responses: {
      200: flowOut,
      202: { description: "Still being processed, or accepted at once with `Prefer: respond-async` (Preference-Applied, Location); poll status_endpoint", schema: "Flow" },
      400: problem("Invalid body or invalid explicit params (names the field)"),
      401: problem("Authentication required"),
    },
  },
  { method: "get", path: "/orchestrator/flows/{flow_id}", summary: "A flow", pathParams: ["flow_id"], responses: { 200: flowOut, 404: problem("Unknown flow") } },
  {
    method: "get",
    path: "/orchestrator/flows/{flow_id}/events",
    summary: "Server-Sent Events: phase, task and run events of a flow",
    pathParams: ["flow_id"],
    responses: {
      200: { description: "event stream", contentType: "text/event-stream" },
      404: problem("Unknown flow"),
      503: problem("Too many open event streams (SVC_MAX_OPEN_STREAMS) or the server is stopping; see Retry-After"),
    },
  },
  {
    method: "post",
    path: "/orchestrator/flows/{flow_id}/approve",
    summary: "Approve a flow in awaiting_approval: its DAG run is created",
    pathParams: ["flow_id"],
    responses: {
      200: flowOut,
      202: { description: "Approved; execution still in progress", schema: "Flow" },
      404: problem("Unknown flow"),
      409: problem("The flow is not awaiting approval"),
    },
  },
  {
    method: "post",
    path: "/orchestrator/flows/{flow_id}/answer",
    summary: "Answer a flow in needs_input (an answer to its question, or params); a valid answer resumes it",
    pathParams: ["flow_id"],
    body: "AnswerRequest",
    responses: {
      200: flowOut,
      202: { description: "Answered; planning resumed", schema: "Flow" },
      400: problem("The answer breaks a rule (names the field); the flow keeps waiting"),
      404: problem("Unknown flow"),
      409: problem("The flow is not waiting for input"),
    },
  },
  {
    method: "post",
    path: "/orchestrator/flows/{flow_id}/cancel",
    summary: "Cancel a flow in awaiting_approval or needs_input",
    pathParams: ["flow_id"],
    body: "CancelRequest",
    responses: { 200: flowOut, 404: problem("Unknown flow"), 409: problem("The flow cannot be cancelled in its status") },
  },
  {
    method: "post",
    path: "/orchestrator/observe",
    summary: "Status, progress, concerns and recommendations of a DAG's run",
    query: S.ObserveQuerySchema,
    responses: { 200: { description: "The observation", schema: "Observation" }, 400: problem("dag_id missing"), 404: problem("Unknown DAG or run") },
  },
  {
    method: "get",
    path: "/orchestrator/status",
    summary: "Orchestrator status: model providers configured (never keys), router mode, counts",
    responses: { 200: { description: "Status", schema: "Status" } },
  },
  { method: "get", path: "/orchestrator/dags", summary: "The discoverable DAGs", responses: { 200: { description: "DAGs", schema: "DagList" } } },
  {
    method: "post",
    path: "/chat",
    summary: "Answer a question from the documentation and the DAG descriptions",
    body: "ChatRequest",
    responses: { 200: { description: "Answer with sources", schema: "ChatResponse" }, 400: problem("Invalid body") },
  },
  { method: "get", path: "/metrics", summary: "Prometheus metrics", responses: { 200: { description: "text format 0.0.4", contentType: "text/plain" } } },
  { method: "get", path: "/openapi.json", summary: "This document", open: true, responses: { 200: { description: "OpenAPI 3.0", contentType: "application/json" } } },
  { method: "get", path: "/docs", summary: "This document as an HTML page", open: true, responses: { 200: { description: "HTML", contentType: "text/html" } } },
];

const ref = (name: Named) => ({ $ref: `#/components/schemas/${name}` });

function operation(op: Op) {
  const parameters = [
    ...(op.pathParams ?? []).map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
    ...Object.entries(op.query ? (toSchema(op.query, "input").properties as Record<string, Record<string, unknown>>) : {}).map(([name, schema]) => ({
      name,
      in: "query",
      required: ((toSchema(op.query!, "input").required as string[] | undefined) ?? []).includes(name),
      schema,
      description: schema.description,
    })),
  ];
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      { description: r.description, content: { [r.contentType ?? "application/json"]: r.schema ? { schema: ref(r.schema) } : {} } },
    ]),
  );
  return {
    summary: op.summary,
    ...(op.open ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(op.body) } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.0 document, generated from the zod schemas that validate the requests. */
export function buildOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  const schemas = Object.fromEntries(Object.entries(COMPONENTS).map(([name, c]) => [name, toSchema(c.schema, c.io)]));
  return {
    openapi: "3.0.3",
    info: { title: "svc assistant API", version, description: "Intents to flows, observation, DAG discovery and documentation chat." },
    security: AUTH_SECURITY.security,
    components: { schemas, securitySchemes: AUTH_SECURITY.securitySchemes },
    paths,
  };
}
