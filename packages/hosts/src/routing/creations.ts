import { sql } from "kysely";
import type { Db } from "@svc/db";

/** A vm_create task routed to a host: in flight (its VM may not be in the host's probe yet) or done lately. */
export interface Creation {
  host: string;
  /** The VM's name; null when the definition names it with a template other than `{{ params.X }}`. */
  name: string | null;
  inFlight: boolean;
  /** When a done one succeeded. */
  endedAt: Date | null;
  memoryMb: number;
  cpus: number;
  disksGb: number[];
  /** `dag/run/task`, for the log. */
  task: string;
}

// Tries of these states will still run (later tries stick to the task's host).
const IN_FLIGHT = ["scheduled", "queued", "running", "up_for_retry", "up_for_reschedule"] as const;
const PARAM = /^\{\{\s*params\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** An arg as the try will render it, where that is certain: a literal or exactly `{{ params.X }}`. */
function resolve(v: unknown, conf: Record<string, unknown>): unknown {
  if (typeof v !== "string") return v;
  const m = PARAM.exec(v);
  if (m) return conf[m[1]!];
  return v.includes("{{") ? undefined : v;
}

const num = (v: unknown, def: number): number => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : def;
};

/** The args of a task in a run's definition snapshot, or {}. */
function argsOf(definition: unknown, taskId: string): Record<string, unknown> {
  const tasks = (definition as { tasks?: { task_id: string; args?: Record<string, unknown> }[] } | null)?.tasks ?? [];
  return tasks.find((t) => t.task_id === taskId)?.args ?? {};
}

/**
 * vm_create tasks already routed to a host (task_instance.host), other than `exclude`: those that
 * will still run, with the memory, vCPUs and disks their definition asks for (vm_create's defaults
 * where a value is a template this cannot render), and those that succeeded in the last day.
 */
export async function vmCreations(db: Db, exclude: { dagId: string; runId: string; taskId: string }): Promise<Creation[]> {
  const base = db
    .selectFrom("task_instance as ti")
    .innerJoin("dag_run as dr", (j) => j.onRef("dr.dag_id", "=", "ti.dag_id").onRef("dr.run_id", "=", "ti.run_id"))
    .select(["ti.dag_id", "ti.run_id", "ti.task_id", "ti.host", "ti.output", "ti.end_date", "dr.conf", "dr.definition"])
    .where("ti.operator", "=", "vm_create")
    .where("ti.host", "is not", null);
  const flying = await base.where("ti.state", "in", [...IN_FLIGHT]).execute();
  const done = await base
    .where("ti.state", "=", "success")
    .where("ti.end_date", ">", sql<Date>`now() - interval '1 day'`)
    .execute();
  const mine = (r: { dag_id: string; run_id: string; task_id: string }) => r.dag_id === exclude.dagId && r.run_id === exclude.runId && r.task_id === exclude.taskId;
  const creation = (r: (typeof flying)[number], inFlight: boolean): Creation => {
    const conf = r.conf ?? {};
    const a = argsOf(r.definition, r.task_id);
    // A done one names its VM in its output; one in flight as its args render.
    const name = inFlight ? resolve(a.name, conf) : (r.output as { name?: unknown } | null)?.name;
    const disks = resolve(a.disks_gb, conf);
    return {
      host: r.host!,
      name: typeof name === "string" ? name : null,
      inFlight,
      endedAt: inFlight ? null : r.end_date,
      memoryMb: num(resolve(a.memory_mb, conf), 512),
      cpus: num(resolve(a.cpus, conf), 1),
      disksGb: Array.isArray(disks) ? disks.map((d) => num(resolve(d, conf), 0)) : [],
      task: `${r.dag_id}/${r.run_id}/${r.task_id}`,
    };
  };
  return [...flying.filter((r) => !mine(r)).map((r) => creation(r, true)), ...done.filter((r) => !mine(r)).map((r) => creation(r, false))];
}
