import { hostQueueName } from "@svc/queue";
import type { DagRow, DagRunRow, ImportErrorRow, TaskInstanceRow } from "@svc/db";
import type { DagDefinition, TaskDefinition } from "@svc/dags";
import type { ApiDag, ApiDagDetail, ApiDagRun, ApiImportError, ApiTask, ApiTaskInstance, ApiTaskInstanceReference, ApiTriggeredDagRun } from "./schemas";
import { scheduleInterval, timetableDescription } from "./timetable";

/** ISO 8601 with an explicit +00:00 offset, as Airflow's API writes dates. */
export function isoDate(d: Date): string {
  return d.toISOString().replace(/Z$/, "+00:00");
}

/** Like isoDate, keeping null. */
export function isoOrNull(d: Date | null | undefined): string | null {
  return d ? isoDate(d) : null;
}

// Fixed values for Airflow fields that have no counterpart here (one pool, one queue, no sub-DAGs).
const MAX_ACTIVE_TASKS = 16;

/**
 * The `dag` columns Airflow's DAG schema is made of: lists read only these, not the definition and
 * params (large jsonb a list would parse for every DAG and never show).
 */
export const DAG_LIST_COLUMNS = [
  "dag_id",
  "fileloc",
  "file_token",
  "is_paused",
  "is_active",
  "description",
  "tags",
  "owners",
  "schedule",
  "max_active_runs",
  "last_parsed_at",
] as const;
export type DagListRow = Pick<DagRow, (typeof DAG_LIST_COLUMNS)[number]>;

/** A `dag` row as Airflow's DAG schema. */
export function dagToApi(row: DagListRow, hasImportErrors: boolean): ApiDag {
  const tags = Array.isArray(row.tags) ? row.tags : [];
  return {
    dag_id: row.dag_id,
    dag_display_name: row.dag_id,
    root_dag_id: null,
    is_paused: row.is_paused,
    is_active: row.is_active,
    is_subdag: false,
    last_parsed_time: isoOrNull(row.last_parsed_at),
    last_pickled: null,
    last_expired: null,
    scheduler_lock: null,
    pickle_id: null,
    default_view: "grid",
    fileloc: row.fileloc,
    file_token: row.file_token,
    owners: Array.isArray(row.owners) ? row.owners : [],
    description: row.description,
    schedule_interval: scheduleInterval(row.schedule),
    timetable_description: timetableDescription(row.schedule),
    tags: tags.map((name) => ({ name })),
    max_active_tasks: MAX_ACTIVE_TASKS,
    max_active_runs: row.max_active_runs,
    has_task_concurrency_limits: false,
    has_import_errors: hasImportErrors,
    next_dagrun: null,
    next_dagrun_data_interval_start: null,
    next_dagrun_data_interval_end: null,
    next_dagrun_create_after: null,
    max_consecutive_failed_dag_runs: 0,
  };
}

/** A `dag` row plus its definition as Airflow's DAGDetail schema (params dumped like `Param.dump()`). */
export function dagDetailToApi(row: DagRow, hasImportErrors: boolean): ApiDagDetail {
  const def = row.definition as DagDefinition;
  const params: ApiDagDetail["params"] = {};
  for (const [name, schema] of Object.entries(def.params ?? {})) {
    const { default: value, description, ...rest } = schema;
    params[name] = { __class: "airflow.models.param.Param", value: value ?? null, description: description ?? null, schema: rest };
  }
  return {
    ...dagToApi(row, hasImportErrors),
    timezone: "UTC",
    catchup: false,
    orientation: "LR",
    concurrency: MAX_ACTIVE_TASKS,
    start_date: null,
    dag_run_timeout: null,
    dataset_expression: null,
    doc_md: def.doc_md ?? null,
    params,
    end_date: null,
    is_paused_upon_creation: true,
    last_parsed: isoOrNull(row.last_parsed_at),
    template_search_path: null,
    render_template_as_native_obj: false,
  };
}

/** A `dag_run` row as Airflow's DAGRun schema. */
/** The dag_run columns the API shows (never the definition snapshot). */
export const DAG_RUN_API_COLUMNS = [
  "run_id",
  "dag_id",
  "logical_date",
  "start_date",
  "end_date",
  "data_interval_start",
  "data_interval_end",
  "last_scheduling_decision",
  "queued_at",
  "run_type",
  "state",
  "external_trigger",
  "conf",
  "note",
  "parent_dag_id",
  "parent_run_id",
  "parent_task_id",
  "parent_try_number",
] as const;
export type ApiDagRunRow = Pick<DagRunRow, (typeof DAG_RUN_API_COLUMNS)[number]>;

export function dagRunToApi(row: ApiDagRunRow): ApiDagRun {
  const logical = isoDate(row.logical_date);
  return {
    dag_run_id: row.run_id,
    dag_id: row.dag_id,
    logical_date: logical,
    execution_date: logical,
    start_date: isoOrNull(row.start_date),
    end_date: isoOrNull(row.end_date),
    data_interval_start: isoOrNull(row.data_interval_start),
    data_interval_end: isoOrNull(row.data_interval_end),
    last_scheduling_decision: isoOrNull(row.last_scheduling_decision),
    queued_at: isoOrNull(row.queued_at),
    run_type: row.run_type,
    state: row.state,
    external_trigger: row.external_trigger,
    conf: row.conf ?? {},
    note: row.note,
    triggered_by:
      row.parent_dag_id && row.parent_run_id && row.parent_task_id && row.parent_try_number !== null
        ? { dag_id: row.parent_dag_id, dag_run_id: row.parent_run_id, task_id: row.parent_task_id, try_number: row.parent_try_number }
        : null,
  };
}

/** A task instance row (with its run's logical date and the runs it triggered) as Airflow's TaskInstance schema. */
export function taskInstanceToApi(row: TaskInstanceRow, logicalDate: Date, triggered: ApiTriggeredDagRun[] | null = null): ApiTaskInstance {
  return {
    task_id: row.task_id,
    task_display_name: row.task_id,
    dag_id: row.dag_id,
    dag_run_id: row.run_id,
    execution_date: isoDate(logicalDate),
    start_date: isoOrNull(row.start_date),
    end_date: isoOrNull(row.end_date),
    duration: row.duration,
    state: row.state,
    try_number: row.try_number,
    map_index: row.map_index,
    max_tries: row.max_tries,
    hostname: row.hostname,
    unixname: "svc",
    pool: "default_pool",
    pool_slots: 1,
    // Airflow's queue: the queue of the hypervisor host the task was routed to (tasks@<host>).
    queue: row.host ? hostQueueName(row.host) : "default",
    priority_weight: 1,
    operator: row.operator,
    queued_when: isoOrNull(row.queued_at),
    pid: row.pid,
    executor: null,
    executor_config: "{}",
    rendered_map_index: null,
    rendered_fields: {},
    note: row.note,
    triggered_dag_runs: triggered ?? [],
  };
}

/** Reference to a task instance (clear results). */
export function taskInstanceRef(row: Pick<TaskInstanceRow, "dag_id" | "run_id" | "task_id">, logicalDate: Date): ApiTaskInstanceReference {
  return { task_id: row.task_id, dag_id: row.dag_id, execution_date: isoDate(logicalDate), dag_run_id: row.run_id };
}

function timeDelta(ms: number) {
  const total = Math.floor(ms / 1000);
  return { __type: "TimeDelta" as const, days: Math.floor(total / 86400), seconds: total % 86400, microseconds: (ms % 1000) * 1000 };
}

const className = (op: string) =>
  op
    .split(/[_-]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("") + "Operator";

/** A task of a DAG definition as Airflow's Task schema; `downstream` is computed from all tasks. */
export function taskToApi(task: TaskDefinition, all: TaskDefinition[], owners: string[]): ApiTask {
  const classRef = { module_path: `svc.operators.${task.operator}`, class_name: className(task.operator) };
  return {
    class_ref: classRef,
    task_id: task.task_id,
    task_display_name: task.task_id,
    owner: owners.join(",") || "airflow",
    start_date: null,
    end_date: null,
    trigger_rule: task.trigger_rule,
    extra_links: [],
    depends_on_past: false,
    is_mapped: false,
    wait_for_downstream: false,
    retries: task.retries,
    // Airflow's queue: the DAG's `queue` (a host whose workers alone run the task), else default.
    queue: task.queue !== undefined ? hostQueueName(task.queue) : "default",
    executor: null,
    pool: "default_pool",
    pool_slots: 1,
    execution_timeout: task.execution_timeout_ms == null ? null : timeDelta(task.execution_timeout_ms),
    retry_delay: timeDelta(task.retry_delay_ms),
    retry_exponential_backoff: task.retry_exponential_backoff,
    priority_weight: 1,
    weight_rule: "downstream",
    ui_color: "#fff",
    ui_fgcolor: "#000",
    template_fields: Object.keys(task.args ?? {}),
    downstream_task_ids: all
      .filter((t) => t.depends_on.includes(task.task_id))
      .map((t) => t.task_id)
      .sort(),
    doc_md: task.doc,
    upstream_task_ids: [...task.depends_on].sort(),
    operator_name: task.operator,
  };
}

/** An `import_error` row as Airflow's ImportError schema. */
export function importErrorToApi(row: ImportErrorRow): ApiImportError {
  return { import_error_id: row.import_error_id, timestamp: isoDate(row.timestamp), filename: row.filename, stack_trace: row.stacktrace };
}
