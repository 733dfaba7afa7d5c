import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

/** jsonb columns: written as JSON text or objects, read as parsed values. */
export type Json<T = unknown> = ColumnType<T, T | string, T | string>;
type Ts = ColumnType<Date, Date | string, Date | string>;
type TsNull = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export const DAG_RUN_STATES = ["queued", "running", "success", "failed"] as const;
export type DagRunState = (typeof DAG_RUN_STATES)[number];

/** Airflow 2 task-instance states; SQL NULL is Airflow's "none" (no status yet). */
export const TASK_STATES = ["scheduled", "queued", "running", "success", "failed", "up_for_retry", "up_for_reschedule", "upstream_failed", "skipped"] as const;
export type TaskState = (typeof TASK_STATES)[number];

export interface DagTable {
  dag_id: string;
  fileloc: string;
  file_token: string;
  is_paused: Generated<boolean>;
  is_active: Generated<boolean>;
  description: string | null;
  tags: Json<string[]>;
  owners: Json<string[]>;
  schedule: string | null;
  max_active_runs: Generated<number>;
  params: Json<Record<string, unknown>>;
  /** The validated DAG definition (packages/dags DagDefinition). */
  definition: Json<unknown>;
  hash: string;
  last_parsed_at: Ts;
  created_at: Generated<Date>;
}

export interface ImportErrorTable {
  import_error_id: Generated<number>;
  filename: string;
  stacktrace: string;
  timestamp: Ts;
}

export interface DagRunTable {
  id: Generated<number>;
  dag_id: string;
  run_id: string;
  state: DagRunState;
  run_type: "manual" | "scheduled" | "backfill" | "dataset_triggered";
  conf: Json<Record<string, unknown>>;
  /** Snapshot of the DAG definition this run executes; file edits do not change running runs. */
  definition: Json<unknown>;
  dag_hash: string;
  logical_date: Ts;
  data_interval_start: TsNull;
  data_interval_end: TsNull;
  queued_at: Generated<Date>;
  start_date: TsNull;
  end_date: TsNull;
  last_scheduling_decision: TsNull;
  note: string | null;
  external_trigger: Generated<boolean>;
  /** Started by the scheduler although the DAG is paused: one approved run, the DAG stays paused. */
  run_while_paused: Generated<boolean>;
  /** The task instance and try that triggered this run (operator trigger_dag_run; migration 011), else null. */
  parent_dag_id: ColumnType<string | null, string | null | undefined, string | null>;
  parent_run_id: ColumnType<string | null, string | null | undefined, string | null>;
  parent_task_id: ColumnType<string | null, string | null | undefined, string | null>;
  parent_try_number: ColumnType<number | null, number | null | undefined, number | null>;
  /**
   * The role the run was triggered or approved with, carried to the runs its tasks trigger
   * (migration 020); null for an internal trigger (the scheduler, the operator's CLI).
   */
  trigger_role: ColumnType<"viewer" | "user" | "op" | "admin" | null, "viewer" | "user" | "op" | "admin" | null | undefined, "viewer" | "user" | "op" | "admin" | null>;
  /** Bumped with every task state change; the scheduler evaluates each version once. */
  version: Generated<number>;
  evaluated_version: Generated<number>;
  updated_at: Generated<Date>;
}

export interface TaskInstanceTable {
  dag_id: string;
  run_id: string;
  task_id: string;
  map_index: Generated<number>;
  state: TaskState | null;
  try_number: Generated<number>;
  max_tries: Generated<number>;
  operator: string;
  queued_at: TsNull;
  start_date: TsNull;
  end_date: TsNull;
  duration: number | null;
  hostname: Generated<string>;
  /** Worker instance that claimed the current try; zombie detection joins it with heartbeats. */
  worker_id: string | null;
  pid: number | null;
  next_retry_at: TsNull;
  timeout_at: TsNull;
  /** Extra tries granted after worker loss; does not consume the task's retries. */
  zombie_count: Generated<number>;
  /** The hypervisor host a host-scoped try was routed to (migration 013), else null. */
  host: ColumnType<string | null, string | null | undefined, string | null>;
  output: Json<unknown> | null;
  error: string | null;
  note: string | null;
  updated_at: Generated<Date>;
}

export interface TaskLogTable {
  id: Generated<string>;
  dag_id: string;
  run_id: string;
  task_id: string;
  try_number: number;
  stream: "stdout" | "stderr" | "system";
  line: string;
  ts: Generated<Date>;
}

export interface FlowTable {
  flow_id: string;
  execution_id: string;
  intent: string;
  params: Json<Record<string, unknown>>;
  status: string;
  dag_id: string | null;
  run_id: string | null;
  phases_completed: Json<string[]>;
  phases_skipped: Json<string[]>;
  auto_approve: boolean;
  auto_execute: boolean;
  summary: string | null;
  next_steps: Json<string[]>;
  missing_params: Json<string[]>;
  error_message: string | null;
  router: Json<Record<string, unknown>>;
  approval: Json<Record<string, unknown> | null> | null;
  /** The client's explicit params (migration 003). */
  requested_params: ColumnType<Record<string, unknown>, Record<string, unknown> | string | undefined, Record<string, unknown> | string>;
  /** Warnings collected by the phases, e.g. "DAG is paused" (migration 003). */
  warnings: ColumnType<string[], string[] | string | undefined, string[] | string>;
  /** The plan's placement preview (migration 014); null when there is none. */
  placement: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** The actor who submitted the intent (migration 020); only they, or an op and above, answer or cancel it. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ComponentHeartbeatTable {
  component: string;
  instance_id: string;
  hostname: string;
  pid: number;
  started_at: Ts;
  last_seen: Ts;
  info: Json<Record<string, unknown>>;
}

export interface AuditEventTable {
  id: Generated<string>;
  at: Generated<Date>;
  actor: string;
  action: string;
  target: string;
  detail: Json<Record<string, unknown>>;
}

export interface IdempotencyKeyTable {
  scope: string;
  key: string;
  ref: string | null;
  created_at: Generated<Date>;
}

export const HOST_STATES = ["active", "draining"] as const;
/** Where a host's VMs are made (migrations 022, 023): libvirt over SSH, or a cloud's API. */
export const HOST_PROVIDERS = ["libvirt", "aws", "hetzner", "gcp", "azure"] as const;
export type HostProvider = (typeof HOST_PROVIDERS)[number];
export type HostState = (typeof HOST_STATES)[number];

/** A hypervisor host of the inventory (migration 012); VMs are counted by probing it. */
export interface HypervisorHostTable {
  name: string;
  ssh_user: string;
  address: string;
  port: Generated<number>;
  key_path: string;
  /** Pinned host keys, `type base64` per line; null until pinned. */
  host_key: string | null;
  libvirt_uri: Generated<string>;
  images_dir: Generated<string>;
  disks_dir: Generated<string>;
  labels: ColumnType<Record<string, string>, Record<string, string> | string | undefined, Record<string, string> | string>;
  state: ColumnType<HostState, HostState | undefined, HostState>;
  reserve_memory_mb: Generated<number>;
  reserve_disk_gb: Generated<number>;
  reserve_vcpus: Generated<number>;
  cpu_ratio: Generated<number>;
  /** What the last probe saw (capacity, VM count), or null before the first. */
  last_probe: Json<unknown> | null;
  probed_at: TsNull;
  probe_error: string | null;
  created_by: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  provider: ColumnType<HostProvider, HostProvider | undefined, HostProvider>;
  /** The provider's settings (region, location, endpoint, credentials mode); never credentials. `{}` for libvirt. */
  provider_settings: ColumnType<Record<string, string>, Record<string, string> | string | undefined, Record<string, string> | string>;
}

export interface Database {
  dag: DagTable;
  import_error: ImportErrorTable;
  dag_run: DagRunTable;
  task_instance: TaskInstanceTable;
  task_log: TaskLogTable;
  flow: FlowTable;
  component_heartbeat: ComponentHeartbeatTable;
  audit_event: AuditEventTable;
  idempotency_key: IdempotencyKeyTable;
  hypervisor_host: HypervisorHostTable;
}

export type DagRow = Selectable<DagTable>;
export type NewDag = Insertable<DagTable>;
export type DagRunRow = Selectable<DagRunTable>;
export type NewDagRun = Insertable<DagRunTable>;
export type DagRunUpdate = Updateable<DagRunTable>;
export type TaskInstanceRow = Selectable<TaskInstanceTable>;
export type NewTaskInstance = Insertable<TaskInstanceTable>;
export type TaskInstanceUpdate = Updateable<TaskInstanceTable>;
export type ImportErrorRow = Selectable<ImportErrorTable>;
export type TaskLogRow = Selectable<TaskLogTable>;
export type FlowRow = Selectable<FlowTable>;
export type NewFlow = Insertable<FlowTable>;
export type HeartbeatRow = Selectable<ComponentHeartbeatTable>;
export type HypervisorHostRow = Selectable<HypervisorHostTable>;
export type NewHypervisorHost = Insertable<HypervisorHostTable>;
export type HypervisorHostUpdate = Updateable<HypervisorHostTable>;
