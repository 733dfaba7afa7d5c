import { z } from "zod";
import { FLOW_STATUSES } from "@svc/flows";

/**
 * Request and response shapes of the assistant API. Requests are validated with these schemas;
 * the OpenAPI document is generated from them, so the two cannot drift.
 */
const json = z.record(z.string(), z.unknown());

export const IntentRequestSchema = z
  .object({
    intent: z.string().trim().min(1).max(2000).describe("What you want, in plain words"),
    params: json.optional().describe("Params for the chosen workflow; they override values read from the intent"),
    auto_approve: z.boolean().default(false).describe("Run workflows that create or delete VMs without asking"),
    auto_execute: z.boolean().default(true).describe("Create the DAG run right away (false: stop at awaiting_approval)"),
  })
  .strict();

export const ObserveQuerySchema = z.object({
  dag_id: z.string().min(1).max(250),
  run_id: z.string().min(1).max(250).optional().describe("Default: the latest run by logical date"),
});

export const FlowIdParamSchema = z.object({ flow_id: z.string() });

export const CancelRequestSchema = z.object({ reason: z.string().max(500).optional() }).strict();

export const AnswerRequestSchema = z
  .object({
    answer: z.string().trim().min(1).max(500).optional().describe("The value for the one field the flow asks for (see question)"),
    params: json.optional().describe("Values for the fields the flow asks for (see input_requests), by param name"),
  })
  .strict()
  .refine((b) => b.answer !== undefined || (b.params !== undefined && Object.keys(b.params).length > 0), { message: "give answer or params", path: ["answer"] });

export const ChatRequestSchema = z
  .object({
    message: z.string().trim().min(1).max(4000),
    history: z
      .array(z.object({ role: z.enum(["user", "assistant", "system"]), content: z.string().max(4000) }).strict())
      .max(50)
      .optional(),
  })
  .strict();

export const UserActionSchema = z.object({
  action: z.enum(["approve", "cancel", "resubmit", "answer", "observe"]),
  method: z.enum(["GET", "POST"]),
  path: z.string(),
  description: z.string(),
});

export const FlowSchema = z.object({
  flow_id: z.string().regex(/^flow-[0-9a-f]{12}$/),
  status: z.enum(FLOW_STATUSES),
  intent: z.string(),
  dag_id: z.string().nullable(),
  execution_id: z.string().regex(/^exec-[0-9a-f]{12}$/),
  run_id: z.string().nullable(),
  params: json,
  phases_completed: z.array(z.string()),
  phases_skipped: z.array(z.string()),
  summary: z.string().nullable(),
  next_steps: z.array(z.string()),
  user_actions: z.array(UserActionSchema),
  missing_params: z.array(z.string()),
  route_status: z.enum(["ready", "needs_input", "rejected"]).nullable().describe("How the intent was routed; null before routing"),
  question: z.string().nullable().describe("needs_input: what to ask the user"),
  input_requests: z
    .array(z.object({ field: z.string(), rule: z.string(), question: z.string(), given: z.string().optional() }))
    .describe("needs_input: each field to answer, the rule it must follow, and the value given if one broke the rule"),
  warnings: z.array(z.string()),
  router: json.describe("Routing evidence: mode, configured_mode, model, fallback_reason, confidence, candidates, reason"),
  approval: json.nullable(),
  placement: json
    .nullable()
    .describe(
      "Where the VMs the run would create would go, by the hosts' last probes: per VM the host, its provider and region, pinned host, each host's verdict and numbers, summary, blocked (no host fits: the run would fail before creating anything), and on a cloud host `cloud` (provider, region, size, image, hourly_price) or `cloud_note`. Null: no VM, or a single-host install",
    ),
  workflow_ui_url: z.string().nullable(),
  status_endpoint: z.string(),
  error_message: z.string().nullable(),
  created_at: z.string(),
  timestamp: z.string(),
});

export const ConcernSchema = z.object({
  severity: z.enum(["error", "warning"]),
  task_id: z.string().optional(),
  message: z.string(),
  log_tail: z.array(z.string()).optional(),
  error_lines: z.array(z.string()).optional(),
});

export const ObservationSchema = z.object({
  dag_id: z.string(),
  run_id: z.string().nullable(),
  overall_status: z.enum(["running", "success", "failed", "pending"]),
  summary: z.string(),
  progress_percent: z.number().min(0).max(100),
  recommendations: z.array(z.string()),
  concerns: z.array(ConcernSchema),
  task_counts: z.record(z.string(), z.number()),
  workflow_ui_url: z.string(),
});

const componentHealth = z.object({ status: z.enum(["healthy", "unhealthy", "degraded"]), detail: z.string().optional() });
export const HealthSchema = z.object({
  status: z.enum(["healthy", "degraded", "unhealthy"]),
  components: z.object({
    database: componentHealth,
    redis: componentHealth,
    scheduler: componentHealth.extend({ latest_heartbeat: z.string().nullable() }),
    workers: componentHealth.extend({ count: z.number().int() }),
    orchestrator: componentHealth.extend({ count: z.number().int() }),
    model_provider: z.object({ configured: z.boolean(), mode: z.enum(["offline", "llm"]), provider: z.enum(["openai_compatible", "local_model"]).nullable() }),
  }),
  version: z.string(),
  timestamp: z.string(),
});

export const StatusSchema = z.object({
  status: z.enum(["ok", "degraded"]),
  model_providers: z.object({ openai_compatible: z.boolean(), local_model: z.boolean() }),
  model: z.string().nullable(),
  router_mode: z.enum(["offline", "llm"]),
  dags: z.number().int(),
  flows: z.object({ total: z.number().int(), by_status: z.record(z.string(), z.number().int()) }),
});

export const DiscoverableDagSchema = z.object({
  dag_id: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  params: json.describe("JSON Schema of the params object"),
  required_params: z.array(z.string()),
  is_paused: z.boolean(),
  is_active: z.boolean(),
  has_import_errors: z.boolean(),
  requires_approval: z.boolean(),
  last_run_state: z.string().nullable(),
  examples: z.array(z.string()),
});
export const DagListSchema = z.object({ dags: z.array(DiscoverableDagSchema), total_entries: z.number().int() });

export const ChatResponseSchema = z.object({
  answer: z.string(),
  sources: z.array(z.object({ title: z.string(), path: z.string(), score: z.number() })),
  mode: z.enum(["extractive", "llm", "inventory"]),
  /** mode inventory: each host's room from its last probe (free is after the host's reserve). */
  hosts: z
    .array(
      z.object({
        host: z.string(),
        state: z.string(),
        up: z.boolean(),
        down_reason: z.string().nullable(),
        measured_at: z.string().nullable(),
        age_s: z.number().nullable(),
        memory_free_mb: z.number().nullable(),
        memory_total_mb: z.number().nullable(),
        vcpus_free: z.number().nullable(),
        vcpus_total: z.number().nullable(),
        disk_free_gb: z.number().nullable(),
        disk_total_gb: z.number().nullable(),
        vm_count: z.number().nullable(),
      }),
    )
    .optional(),
  /** mode inventory, for "would a VM of this size fit?": the size asked about, the host placement would choose (null: none fits) and each host's verdict. */
  fit: z
    .object({
      size: z.record(z.string(), z.number()),
      host: z.string().nullable(),
      verdicts: z.array(z.object({ host: z.string(), fits: z.boolean(), reasons: z.array(z.string()) })),
    })
    .optional(),
});

export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  field: z.string().optional(),
  fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export type IntentRequest = z.infer<typeof IntentRequestSchema>;
export type Observation = z.infer<typeof ObservationSchema>;
export type Health = z.infer<typeof HealthSchema>;
