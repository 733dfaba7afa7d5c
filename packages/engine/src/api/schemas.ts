import { z } from "zod";

/**
 * Response shapes of the engine API: the Airflow 2.10 stable REST API schemas (component names kept),
 * restricted to the fields we fill. The REST service documents them in its OpenAPI document; the
 * TypeScript types below are inferred from them, so code and document cannot drift.
 */
const date = z.string().describe("ISO 8601 date-time with offset");
const nullableDate = date.nullable();

export const TagSchema = z.object({ name: z.string() });
export const CronExpressionSchema = z.object({ __type: z.literal("CronExpression"), value: z.string() });
export const TimeDeltaSchema = z.object({ __type: z.literal("TimeDelta"), days: z.number().int(), seconds: z.number().int(), microseconds: z.number().int() });

export const DagSchema = z.object({
  dag_id: z.string(),
  dag_display_name: z.string(),
  root_dag_id: z.string().nullable(),
  is_paused: z.boolean(),
  is_active: z.boolean(),
  is_subdag: z.boolean(),
  last_parsed_time: nullableDate,
  last_pickled: nullableDate,
  last_expired: nullableDate,
  scheduler_lock: z.boolean().nullable(),
  pickle_id: z.string().nullable(),
  default_view: z.string().nullable(),
  fileloc: z.string(),
  file_token: z.string(),
  owners: z.array(z.string()),
  description: z.string().nullable(),
  schedule_interval: CronExpressionSchema.nullable(),
  timetable_description: z.string().nullable(),
  tags: z.array(TagSchema),
  max_active_tasks: z.number().int(),
  max_active_runs: z.number().int(),
  has_task_concurrency_limits: z.boolean(),
  has_import_errors: z.boolean(),
  next_dagrun: nullableDate,
  next_dagrun_data_interval_start: nullableDate,
  next_dagrun_data_interval_end: nullableDate,
  next_dagrun_create_after: nullableDate,
  max_consecutive_failed_dag_runs: z.number().int(),
});

/** One DAG param as Airflow dumps it (`Param.dump()`). */
export const ParamDumpSchema = z.object({
  __class: z.literal("airflow.models.param.Param"),
  value: z.unknown(),
  description: z.string().nullable(),
  schema: z.record(z.string(), z.unknown()),
});

export const DagDetailSchema = DagSchema.extend({
  timezone: z.string(),
  catchup: z.boolean(),
  orientation: z.string(),
  concurrency: z.number(),
  start_date: nullableDate,
  dag_run_timeout: TimeDeltaSchema.nullable(),
  dataset_expression: z.record(z.string(), z.unknown()).nullable(),
  doc_md: z.string().nullable(),
  params: z.record(z.string(), ParamDumpSchema),
  end_date: nullableDate,
  is_paused_upon_creation: z.boolean().nullable(),
  last_parsed: nullableDate,
  template_search_path: z.array(z.string()).nullable(),
  render_template_as_native_obj: z.boolean(),
});

export const DAG_RUN_STATE_VALUES = ["queued", "running", "success", "failed"] as const;

export const DagRunSchema = z.object({
  dag_run_id: z.string(),
  dag_id: z.string(),
  logical_date: date,
  execution_date: date,
  start_date: nullableDate,
  end_date: nullableDate,
  data_interval_start: nullableDate,
  data_interval_end: nullableDate,
  last_scheduling_decision: nullableDate,
  queued_at: nullableDate,
  run_type: z.enum(["backfill", "manual", "scheduled", "dataset_triggered"]),
  state: z.enum(DAG_RUN_STATE_VALUES),
  external_trigger: z.boolean(),
  conf: z.record(z.string(), z.unknown()),
  note: z.string().nullable(),
  /** Not in Airflow: the task instance (and try) whose trigger_dag_run task created this run. */
  triggered_by: z.object({ dag_id: z.string(), dag_run_id: z.string(), task_id: z.string(), try_number: z.number().int() }).nullable(),
});

/** Not in Airflow: a run a task instance triggered (operator trigger_dag_run), by the try that did. */
export const TriggeredDagRunSchema = z.object({ dag_id: z.string(), dag_run_id: z.string(), try_number: z.number().int(), state: z.enum(DAG_RUN_STATE_VALUES) });

export const TaskInstanceSchema = z.object({
  task_id: z.string(),
  task_display_name: z.string(),
  dag_id: z.string(),
  dag_run_id: z.string(),
  execution_date: date,
  start_date: nullableDate,
  end_date: nullableDate,
  duration: z.number().nullable(),
  state: z.enum(["scheduled", "queued", "running", "success", "failed", "up_for_retry", "up_for_reschedule", "upstream_failed", "skipped"]).nullable(),
  try_number: z.number().int(),
  map_index: z.number().int(),
  max_tries: z.number().int(),
  hostname: z.string(),
  unixname: z.string(),
  pool: z.string(),
  pool_slots: z.number().int(),
  queue: z.string().nullable(),
  priority_weight: z.number().int().nullable(),
  operator: z.string().nullable(),
  queued_when: z.string().nullable(),
  pid: z.number().int().nullable(),
  executor: z.string().nullable(),
  executor_config: z.string(),
  rendered_map_index: z.string().nullable(),
  rendered_fields: z.record(z.string(), z.unknown()),
  note: z.string().nullable(),
  /** Not in Airflow: the runs this task instance triggered, oldest try first (empty for other operators). */
  triggered_dag_runs: z.array(TriggeredDagRunSchema),
});

export const TaskInstanceReferenceSchema = z.object({
  task_id: z.string(),
  dag_id: z.string(),
  execution_date: date,
  dag_run_id: z.string(),
});

export const ClassReferenceSchema = z.object({ module_path: z.string(), class_name: z.string() });

export const TaskSchema = z.object({
  class_ref: ClassReferenceSchema,
  task_id: z.string(),
  task_display_name: z.string(),
  owner: z.string(),
  start_date: nullableDate,
  end_date: nullableDate,
  trigger_rule: z.string(),
  extra_links: z.array(z.object({ class_ref: ClassReferenceSchema })),
  depends_on_past: z.boolean(),
  is_mapped: z.boolean(),
  wait_for_downstream: z.boolean(),
  retries: z.number(),
  queue: z.string().nullable(),
  executor: z.string().nullable(),
  pool: z.string(),
  pool_slots: z.number(),
  execution_timeout: TimeDeltaSchema.nullable(),
  retry_delay: TimeDeltaSchema,
  retry_exponential_backoff: z.boolean(),
  priority_weight: z.number(),
  weight_rule: z.enum(["downstream", "upstream", "absolute"]),
  ui_color: z.string(),
  ui_fgcolor: z.string(),
  template_fields: z.array(z.string()),
  downstream_task_ids: z.array(z.string()),
  doc_md: z.string().nullable(),
  /** Not in Airflow: the task's upstream ids and raw args, for `dags show` and tools. */
  upstream_task_ids: z.array(z.string()),
  operator_name: z.string(),
});

export const ImportErrorSchema = z.object({
  import_error_id: z.number().int(),
  timestamp: date,
  filename: z.string(),
  stack_trace: z.string(),
});

const health = z.enum(["healthy", "unhealthy"]).nullable();
export const HealthInfoSchema = z.object({
  metadatabase: z.object({ status: health }),
  scheduler: z.object({ status: health, latest_scheduler_heartbeat: nullableDate }),
  triggerer: z.object({ status: health, latest_triggerer_heartbeat: nullableDate }),
  dag_processor: z.object({ status: health, latest_dag_processor_heartbeat: nullableDate }),
  /**
   * svc's own: each hypervisor host a live worker serves (several-host installs), healthy when a
   * worker serving it reaches it; each worker's view with the reason it cannot. Absent when no
   * worker reports hosts.
   */
  hypervisor_hosts: z
    .record(
      z.string(),
      z.object({
        status: health,
        workers: z.array(z.object({ worker: z.string(), up: z.boolean(), reason: z.string().nullable(), probed_at: z.string().nullable() })),
      }),
    )
    .optional(),
});

export const VersionInfoSchema = z.object({ version: z.string(), git_version: z.string().nullable() });

export const TaskLogSchema = z.object({ content: z.string(), continuation_token: z.string() });

const total = { total_entries: z.number().int() };
export const DagCollectionSchema = z.object({ dags: z.array(DagSchema), ...total });
export const DagRunCollectionSchema = z.object({ dag_runs: z.array(DagRunSchema), ...total });
export const TaskInstanceCollectionSchema = z.object({ task_instances: z.array(TaskInstanceSchema), ...total });
export const TaskInstanceReferenceCollectionSchema = z.object({ task_instances: z.array(TaskInstanceReferenceSchema) });
export const TaskCollectionSchema = z.object({ tasks: z.array(TaskSchema), ...total });
export const ImportErrorCollectionSchema = z.object({ import_errors: z.array(ImportErrorSchema), ...total });

export type ApiDag = z.infer<typeof DagSchema>;
export type ApiDagDetail = z.infer<typeof DagDetailSchema>;
export type ApiDagRun = z.infer<typeof DagRunSchema>;
export type ApiTaskInstance = z.infer<typeof TaskInstanceSchema>;
export type ApiTriggeredDagRun = z.infer<typeof TriggeredDagRunSchema>;
export type ApiTaskInstanceReference = z.infer<typeof TaskInstanceReferenceSchema>;
export type ApiTask = z.infer<typeof TaskSchema>;
export type ApiImportError = z.infer<typeof ImportErrorSchema>;
export type ApiHealthInfo = z.infer<typeof HealthInfoSchema>;
export type ApiVersionInfo = z.infer<typeof VersionInfoSchema>;
export type ApiDagCollection = z.infer<typeof DagCollectionSchema>;
export type ApiDagRunCollection = z.infer<typeof DagRunCollectionSchema>;
export type ApiTaskInstanceCollection = z.infer<typeof TaskInstanceCollectionSchema>;
export type ApiTaskInstanceReferenceCollection = z.infer<typeof TaskInstanceReferenceCollectionSchema>;
export type ApiTaskCollection = z.infer<typeof TaskCollectionSchema>;
export type ApiImportErrorCollection = z.infer<typeof ImportErrorCollectionSchema>;

/** Every response component, by its Airflow name (for the OpenAPI document). */
export const API_COMPONENTS = {
  Tag: TagSchema,
  CronExpression: CronExpressionSchema,
  TimeDelta: TimeDeltaSchema,
  ClassReference: ClassReferenceSchema,
  DAG: DagSchema,
  DAGDetail: DagDetailSchema,
  DAGCollection: DagCollectionSchema,
  DAGRun: DagRunSchema,
  DAGRunCollection: DagRunCollectionSchema,
  TaskInstance: TaskInstanceSchema,
  TriggeredDagRun: TriggeredDagRunSchema,
  TaskInstanceCollection: TaskInstanceCollectionSchema,
  TaskInstanceReference: TaskInstanceReferenceSchema,
  TaskInstanceReferenceCollection: TaskInstanceReferenceCollectionSchema,
  Task: TaskSchema,
  TaskCollection: TaskCollectionSchema,
  ImportError: ImportErrorSchema,
  ImportErrorCollection: ImportErrorCollectionSchema,
  HealthInfo: HealthInfoSchema,
  VersionInfo: VersionInfoSchema,
  TaskLog: TaskLogSchema,
} as const;
