import type { ParamSchema, TriggerRule } from "./types";

/** A task as written in the file, after schema validation and schema defaults. */
export interface RawTask {
  task_id: string;
  operator: string;
  args: Record<string, unknown>;
  depends_on: string[];
  trigger_rule: TriggerRule;
  when: string | null;
  retries: number;
  retry_delay: number | string;
  retry_exponential_backoff: boolean;
  max_retry_delay: number | string;
  execution_timeout: number | string | null;
  /** Airflow's queue: a hypervisor host whose workers alone may run the task. */
  queue?: string;
  doc: string | null;
}

/** A DAG as written in the file, after schema validation and schema defaults. */
export interface RawDag {
  dag_id: string;
  description: string | null;
  tags: string[];
  owners: string[];
  schedule: string | null;
  max_active_runs: number;
  triggered_runs_while_paused: boolean;
  params: Record<string, ParamSchema>;
  examples: string[];
  doc_md: string | null;
  tasks: RawTask[];
}

/** Collects problems found in one file, each placed at a YAML path. */
export interface ProblemSink {
  /** Add a problem located at the value at `path` (line looked up from the YAML). */
  at(path: readonly (string | number)[], message: string): void;
  /** Add a problem located at the key `key` of the mapping at `path`. */
  atKey(path: readonly (string | number)[], key: string, message: string): void;
}
