import { z } from "zod";
import type { ApiDag, ApiDagRun, ApiTaskInstance } from "@svc/engine";

/** Compact shapes: what an agent needs, not every Airflow field (answers stay small). */
export const DagSummary = z.object({
  dag_id: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  is_paused: z.boolean(),
  has_import_errors: z.boolean(),
  schedule: z.string().nullable(),
});
export type DagSummary = z.infer<typeof DagSummary>;

export const RunSummary = z.object({
  dag_id: z.string(),
  run_id: z.string(),
  state: z.string().nullable(),
  run_type: z.string(),
  logical_date: z.string().nullable(),
  start_date: z.string().nullable(),
  end_date: z.string().nullable(),
  conf: z.record(z.string(), z.unknown()),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const TaskSummary = z.object({
  task_id: z.string(),
  state: z.string().nullable(),
  try_number: z.number(),
  max_tries: z.number(),
  duration_s: z.number().nullable(),
  operator: z.string().nullable(),
});
export type TaskSummary = z.infer<typeof TaskSummary>;

export function dagSummary(d: ApiDag): DagSummary {
  const schedule = d.schedule_interval as { value?: unknown } | null;
  return {
    dag_id: d.dag_id,
    description: d.description ?? null,
    tags: (d.tags ?? []).map((t) => t.name),
    is_paused: Boolean(d.is_paused),
    has_import_errors: Boolean(d.has_import_errors),
    schedule: schedule && typeof schedule.value === "string" ? schedule.value : null,
  };
}

export function runSummary(r: ApiDagRun): RunSummary {
  return {
    dag_id: r.dag_id,
    run_id: r.dag_run_id ?? "",
    state: r.state ?? null,
    run_type: String(r.run_type),
    logical_date: r.logical_date ?? null,
    start_date: r.start_date ?? null,
    end_date: r.end_date ?? null,
    conf: r.conf ?? {},
  };
}

export function taskSummary(t: ApiTaskInstance): TaskSummary {
  return {
    task_id: t.task_id,
    state: t.state ?? null,
    try_number: t.try_number ?? 0,
    max_tries: t.max_tries ?? 0,
    duration_s: t.duration ?? null,
    operator: t.operator ?? null,
  };
}

/** Task states after which a task does nothing more in this run. */
export const FINISHED_TASK_STATES = new Set(["success", "failed", "skipped", "upstream_failed"]);

/** Shared input fields. */
export const dagIdField = z.string().min(1).max(250).describe("DAG id, e.g. vm_deployment");
export const runIdField = z.string().min(1).max(250).describe("DAG run id (dag_run_id)");
export const limitField = (def: number, max: number) => z.number().int().min(1).max(max).default(def).describe(`at most this many items (default ${def}, max ${max})`);
