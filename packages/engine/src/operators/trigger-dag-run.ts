import { createHash } from "node:crypto";
import { z } from "zod";
import { isSvcError, NonRetryableError, type ErrorCode } from "@svc/errors";
// Host-agnostic: the engine's own operator ports (no executor), so any worker context runs it.
import { RescheduleTry, type DagRunsPort, type Operator, type OperatorContext, type RunView } from "../ports";

const RUN_STATES = ["queued", "running", "success", "failed"] as const;
type RunState = (typeof RUN_STATES)[number];

/** Airflow's BaseSensorOperator default: a week. */
export const DEFAULT_TRIGGER_TIMEOUT_S = 7 * 24 * 3600;

const args = z
  .object({
    trigger_dag_id: z.string().min(1),
    conf: z.record(z.string(), z.unknown()).default({}),
    trigger_run_id: z.string().min(1).max(250).optional(),
    wait_for_completion: z.boolean().default(true),
    poke_interval: z.coerce.number().min(1).max(86400).default(10),
    allowed_states: z.array(z.enum(RUN_STATES)).min(1).default(["success"]),
    failed_states: z.array(z.enum(RUN_STATES)).default(["failed"]),
    /** Seconds from the child's trigger until the wait gives up (the task's execution_timeout bounds one poke only). */
    timeout: z.coerce.number().min(1).default(DEFAULT_TRIGGER_TIMEOUT_S),
  })
  .refine((a) => !a.allowed_states.some((s) => a.failed_states.includes(s)), { message: "allowed_states and failed_states must not share a state" });

export type TriggerDagRunArgs = z.output<typeof args>;

/** Errors of a trigger that no retry can fix: the task fails at once with the child's message. */
const PERMANENT: readonly ErrorCode[] = ["dag_not_found", "params_invalid", "dag_has_import_errors", "bad_request", "forbidden"];

type TryRef = Pick<OperatorContext, "dagId" | "runId" | "taskId" | "tryNumber">;

/**
 * The child's run id when none is given: the same for every delivery of one try (so at-least-once
 * delivery finds the run it made instead of making another), new for each try. Readable prefix,
 * then a hash of the whole key (ids may hold the separators).
 */
export function derivedTriggerRunId(t: TryRef): string {
  const hash = createHash("sha256")
    .update(JSON.stringify([t.dagId, t.runId, t.taskId, t.tryNumber]))
    .digest("hex")
    .slice(0, 12);
  return `triggered__${t.dagId}.${t.taskId}`.replace(/[^A-Za-z0-9_.~:+-]/g, "_").slice(0, 200) + `__try${t.tryNumber}__${hash}`;
}

const isOurs = (p: RunView["parent"], t: TryRef) => !!p && p.dagId === t.dagId && p.runId === t.runId && p.taskId === t.taskId && p.tryNumber === t.tryNumber;
const describeParent = (p: RunView["parent"]) => (p ? `triggered by ${p.dagId}/${p.runId}/${p.taskId} try ${p.tryNumber}` : "not triggered by a task");

/** Find this try's child run, or create it (first poke). */
export async function childRun(port: DagRunsPort, a: Pick<TriggerDagRunArgs, "trigger_dag_id" | "conf">, runId: string, ctx: OperatorContext): Promise<RunView> {
  let child = await port.find(a.trigger_dag_id, runId);
  if (!child) {
    try {
      const made = await port.trigger(a.trigger_dag_id, runId, a.conf);
      if (made.created) ctx.log(`triggered run ${runId} of DAG ${a.trigger_dag_id}`);
      child = made;
    } catch (e) {
      if (isSvcError(e) && PERMANENT.includes(e.code)) throw new NonRetryableError(`cannot trigger DAG '${a.trigger_dag_id}': ${e.message}`);
      throw e;
    }
  }
  if (!isOurs(child.parent, ctx)) {
    throw new NonRetryableError(`run '${runId}' of DAG '${a.trigger_dag_id}' already exists, ${describeParent(child.parent)}; give another trigger_run_id`);
  }
  return child;
}

/**
 * Trigger a run of another DAG and (by default) wait for it without holding a worker slot: each
 * poke reads the child's state and either ends the try or reschedules it (same try number).
 */
export const triggerDagRunOperator: Operator<TriggerDagRunArgs> = {
  name: "trigger_dag_run",
  description: "Trigger a run of another DAG (conf checked against its params) and wait for it, polling every poke_interval seconds without holding a worker slot",
  args,
  resumable: true,
  async run(a, ctx) {
    if (!ctx.dagRuns) throw new NonRetryableError("trigger_dag_run runs only on an engine worker (no DAG runs port here)");
    const runId = a.trigger_run_id ?? derivedTriggerRunId(ctx);
    const child = await childRun(ctx.dagRuns, a, runId, ctx);
    const state: RunState = child.state;
    const output = { trigger_dag_id: a.trigger_dag_id, trigger_run_id: runId, state, triggered_at: child.triggeredAt.toISOString() };
    if (!a.wait_for_completion) return output;
    if (a.allowed_states.includes(state)) {
      ctx.log(`run ${runId} of DAG ${a.trigger_dag_id} is ${state}`);
      return output;
    }
    if (a.failed_states.includes(state)) {
      const reason = await ctx.dagRuns.failureReason(a.trigger_dag_id, runId);
      const msg = `triggered run ${runId} of DAG ${a.trigger_dag_id} ended ${state}: ${reason}`;
      ctx.log(msg, "stderr");
      throw new Error(msg);
    }
    const waitedS = (Date.now() - child.triggeredAt.getTime()) / 1000;
    if (waitedS >= a.timeout) {
      // Left running on purpose: stopping another DAG's run is a decision for a person (mark it failed).
      throw new NonRetryableError(
        `timeout of ${a.timeout}s waiting for run ${runId} of DAG ${a.trigger_dag_id}: it is still ${state} and was left running (mark it failed to stop it)`,
      );
    }
    const delay = Math.max(1, Math.min(a.poke_interval, Math.ceil(a.timeout - waitedS)));
    ctx.log(`run ${runId} of DAG ${a.trigger_dag_id} is ${state}; checking again in ${delay}s`);
    throw new RescheduleTry(delay, output);
  },
};
