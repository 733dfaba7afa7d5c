/** Airflow 2 trigger rules. */
export const TRIGGER_RULES = [
  "all_success",
  "all_failed",
  "all_done",
  "one_success",
  "one_failed",
  "none_failed",
  "none_failed_min_one_success",
  "none_skipped",
  "always",
] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];

/** A task after parsing and normalisation (durations in milliseconds, defaults applied). */
export interface TaskDefinition {
  task_id: string;
  operator: string;
  /** Raw args; string values may hold `{{ ... }}` templates rendered at run time. */
  args: Record<string, unknown>;
  depends_on: string[];
  trigger_rule: TriggerRule;
  /** Condition template on params; false makes the task `skipped`. Absent means always run. */
  when: string | null;
  retries: number;
  retry_delay_ms: number;
  retry_exponential_backoff: boolean;
  /** Upper bound for exponential backoff. */
  max_retry_delay_ms: number;
  execution_timeout_ms: number | null;
  /**
   * Airflow's queue: the task runs only on a worker serving this hypervisor host (queue
   * `tasks@<host>`), as a `host` arg pins a host-scoped task. Absent (the usual case): any worker.
   */
  queue?: string;
  doc: string | null;
}

/** A DAG after parsing and validation: what is stored in `dag.definition` and snapshotted in `dag_run.definition`. */
export interface DagDefinition {
  dag_id: string;
  description: string | null;
  tags: string[];
  owners: string[];
  /** null, a 5-field cron expression, or a preset such as @daily / @hourly. */
  schedule: string | null;
  max_active_runs: number;
  /**
   * A run another DAG's task triggers may start while this DAG is paused, when the parent run was
   * triggered or approved by an op or above (the DAG stays paused). Present only when true, so the
   * definitions (and hashes) of DAGs without it do not change.
   */
  triggered_runs_while_paused?: true;
  /** JSON Schema properties; each may carry a default. */
  params: Record<string, ParamSchema>;
  /** Names of params a run must supply (no default). */
  required_params: string[];
  /** Sentences a user might type, for the intent router. */
  examples: string[];
  doc_md: string | null;
  tasks: TaskDefinition[];
}

/** A JSON Schema property (subset we document; ajv checks the rest). */
export interface ParamSchema {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  description?: string;
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  items?: ParamSchema;
  /** Only callers with this API role or above may set the param to anything but its default. */
  min_role?: ParamRole;
  /** Values (of the param, or held by an array param) only this role and above may set. */
  min_role_values?: Record<string, ParamRole>;
  /** CIDR values (of the param, or held by an array param) that together open more than this span: only the role and above may set them. */
  min_role_cidr_span?: CidrSpan;
  [k: string]: unknown;
}

/** A bound on the addresses a CIDR param opens: past a network of `ipv4` (or `ipv6`) prefix length, `role` and above only. */
export interface CidrSpan {
  role: ParamRole;
  ipv4?: number;
  ipv6?: number;
}

/** Roles a param may require (the API's roles above viewer). */
export type ParamRole = "user" | "op" | "admin";

/** One problem found while loading a DAG file. */
export interface DagFileProblem {
  message: string;
  line?: number;
}

/** Result of parsing one file: a DAG, or the problems that stopped it. */
export type DagFileResult = { ok: true; fileloc: string; dag: DagDefinition; hash: string } | { ok: false; fileloc: string; problems: DagFileProblem[] };

/** What the DAG validator needs to know about operators (name → args check). */
export interface OperatorCatalog {
  has(name: string): boolean;
  /** Checks literal (non-templated) args; returns human-readable problems. */
  checkArgs(name: string, args: Record<string, unknown>): string[];
  /** Known operator names, used for "did you mean" hints when present. */
  names?(): string[];
}
