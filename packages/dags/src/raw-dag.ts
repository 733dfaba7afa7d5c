import type { DagDefinition, TaskDefinition } from "./types";

/** A task as written in the file, after schema validation and schema defaults: durations as written. */
export type RawTask = Omit<TaskDefinition, "retry_delay_ms" | "max_retry_delay_ms" | "execution_timeout_ms"> & {
  retry_delay: number | string;
  max_retry_delay: number | string;
  execution_timeout: number | string | null;
};

/** A DAG as written in the file, after schema validation and schema defaults (before required params are derived). */
export type RawDag = Omit<DagDefinition, "triggered_runs_while_paused" | "required_params" | "tasks"> & {
  triggered_runs_while_paused: boolean;
  tasks: RawTask[];
};

/** Collects problems found in one file, each placed at a YAML path. */
export interface ProblemSink {
  /** Add a problem located at the value at `path` (line looked up from the YAML). */
  at(path: readonly (string | number)[], message: string): void;
  /** Add a problem located at the key `key` of the mapping at `path`. */
  atKey(path: readonly (string | number)[], key: string, message: string): void;
}
