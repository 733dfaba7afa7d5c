import { sql } from "kysely";
import { evaluateCondition, type DagDefinition, type TaskDefinition } from "@svc/dags";
import type { TaskJob } from "@svc/queue";
import { decideRun } from "../core/decide";
import { enqueueTasks } from "./enqueue";
import { nowOf, type RuntimeDeps } from "./deps";
import { templateContext } from "./template-context";

export interface EvaluateResult {
  evaluated: boolean;
  queued: number;
  runState?: string;
}

type EvalDeps = Pick<RuntimeDeps, "db" | "queues" | "notifier" | "logger" | "clock">;

/**
 * Evaluate one running run: apply the pure decision in one transaction (row-locked, so concurrent
 * schedulers serialise per run), then enqueue the new tries. Skips versions already evaluated.
 */
export async function evaluateRun(deps: EvalDeps, dagId: string, runId: string, minVersion = 0): Promise<EvaluateResult> {
  const now = nowOf(deps);
  let wakeAt: Date | null = null;
  let finished: string | undefined;
  const jobs: TaskJob[] = [];

  const evaluated = await deps.db.transaction().execute(async (tx) => {
    const run = await tx.selectFrom("dag_run").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).forUpdate().executeTakeFirst();
    if (!run || run.state !== "running") return false;
    if (minVersion && run.evaluated_version >= minVersion) return false;
    const dag = run.definition as DagDefinition;
    const tis = await tx.selectFrom("task_instance").select(["task_id", "state", "try_number", "next_retry_at", "output"]).where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
    const outputs = Object.fromEntries(tis.filter((t) => t.state === "success").map((t) => [t.task_id, t.output]));
    const ctx = templateContext(run, outputs);
    const when = (task: TaskDefinition) => {
      if (!task.when) return true;
      try {
        return evaluateCondition(task.when, ctx);
      } catch (e) {
        // A condition that cannot be evaluated is false: the branch is skipped, and the reason logged.
        deps.logger.warn({ dagId, runId, taskId: task.task_id, err: String(e) }, "when condition failed; skipping task");
        return false;
      }
    };
    const d = decideRun(dag, tis, now, when);

    for (const q of d.queue) {
      await tx
        .updateTable("task_instance")
        .set({ state: "queued", try_number: q.try_number, queued_at: now, next_retry_at: null, worker_id: null, updated_at: now, timeout_at: null })
        .where("dag_id", "=", dagId).where("run_id", "=", runId).where("task_id", "=", q.task_id)
        .execute();
      jobs.push({ dagId, runId, taskId: q.task_id, tryNumber: q.try_number });
    }
    for (const [ids, state] of [[d.skip, "skipped"], [d.upstreamFailed, "upstream_failed"]] as const) {
      if (!ids.length) continue;
      await tx
        .updateTable("task_instance")
        .set({ state, start_date: sql`coalesce(start_date, ${now})`, end_date: now, duration: 0, updated_at: now })
        .where("dag_id", "=", dagId).where("run_id", "=", runId).where("task_id", "in", [...ids])
        .execute();
    }
    const runUpdate = { evaluated_version: run.version, last_scheduling_decision: now, updated_at: now };
    if (d.runState !== "running") {
      finished = d.runState;
      await tx.updateTable("dag_run").set({ ...runUpdate, state: d.runState, end_date: now }).where("id", "=", run.id).execute();
    } else {
      await tx.updateTable("dag_run").set(runUpdate).where("id", "=", run.id).execute();
    }
    wakeAt = d.wakeAt;
    return true;
  });

  if (!evaluated) return { evaluated: false, queued: 0 };
  // After commit: if this enqueue fails, reconciliation re-enqueues queued tries without a job.
  await enqueueTasks(deps.queues, jobs).catch((e) => deps.logger.error({ dagId, runId, err: String(e) }, "enqueue failed; reconciliation will retry"));
  if (finished) {
    deps.logger.info({ dagId, runId, state: finished }, "run finished");
    await deps.notifier.dagChanged(dagId);
  }
  if (wakeAt) await scheduleWake(deps, dagId, runId, wakeAt as Date, now);
  return { evaluated: true, queued: jobs.length, runState: finished ?? "running" };
}

/** A delayed evaluation for the earliest retry time (reconciliation also covers it if Redis loses it). */
async function scheduleWake(deps: EvalDeps, dagId: string, runId: string, at: Date, now: Date): Promise<void> {
  const delay = Math.max(0, at.getTime() - now.getTime());
  const jobId = `wake|${dagId.replace(/[|:]/g, "_")}|${runId.replace(/[|:]/g, "_")}|${at.getTime()}`;
  await deps.queues.scheduler
    .add("run", { kind: "run", dagId, runId, version: 0 }, { jobId, delay, removeOnComplete: true, removeOnFail: 100 })
    .catch((e) => deps.logger.warn({ dagId, runId, err: String(e) }, "could not schedule retry wake-up"));
}
