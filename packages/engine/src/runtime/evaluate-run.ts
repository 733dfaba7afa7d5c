import { sql } from "kysely";
import { evaluateCondition, type TaskDefinition } from "@svc/dags";
import type { TaskJob } from "@svc/queue";
import { decideRun } from "../core/decide";
import { enqueueTasks } from "./enqueue";
import { nowOf, type RuntimeDeps } from "./deps";
import { runDefinition, readsOutputs } from "./definition-cache";
import { templateContext } from "./template-context";

export interface EvaluateResult {
  evaluated: boolean;
  queued: number;
  runState?: string;
}

type EvalDeps = Pick<RuntimeDeps, "db" | "queues" | "notifier" | "logger" | "clock">;

/**
 * Evaluate one running run: apply the pure decision in one transaction (serialised per run across
 * schedulers), then enqueue the new tries. Skips versions already evaluated.
 */
export async function evaluateRun(deps: EvalDeps, dagId: string, runId: string, minVersion = 0): Promise<EvaluateResult> {
  const now = nowOf(deps);
  let wakeAt: Date | null = null;
  let finished: string | undefined;
  const jobs: TaskJob[] = [];

  const evaluated = await deps.db.transaction().execute(async (tx) => {
    // Serialise evaluations of one run with an advisory lock rather than the row lock, so workers
    // committing results never wait behind an evaluation.
    await sql`select pg_advisory_xact_lock(hashtext(${`svc-run:${dagId}:${runId}`}))`.execute(tx);
    const run = await tx.selectFrom("dag_run").select(["id", "dag_id", "run_id", "state", "conf", "logical_date", "dag_hash", "version", "evaluated_version"]).where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst();
    if (!run || run.state !== "running") return false;
    if (minVersion && run.evaluated_version >= minVersion) return false;
    // Cheap pre-check: with nothing waiting to start and tasks still unfinished, no decision can
    // change (wide runs get one event per finished task, and most of them find nothing to do).
    const pending = await tx
      .selectFrom("task_instance")
      .select([
        sql<number>`count(*) filter (where state is null or state = 'up_for_retry')::int`.as("waiting"),
        sql<number>`count(*) filter (where state is null or state not in ('success','failed','skipped','upstream_failed'))::int`.as("unfinished"),
      ])
      .where("dag_id", "=", dagId).where("run_id", "=", runId)
      .executeTakeFirstOrThrow();
    // Read-only on purpose (no commit to flush); reconciliation re-checks such runs cheaply.
    if (pending.waiting === 0 && pending.unfinished > 0) return true;
    const dag = await runDefinition(tx, dagId, runId, run.dag_hash);
    if (!dag) return false;
    const needOutputs = dag.tasks.some((t) => t.when && readsOutputs(t.when));
    const tis = await tx.selectFrom("task_instance").select(["task_id", "state", "try_number", "next_retry_at"]).where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
    const outputs = needOutputs
      ? Object.fromEntries((await tx.selectFrom("task_instance").select(["task_id", "output"]).where("dag_id", "=", dagId).where("run_id", "=", runId).where("state", "=", "success").execute()).map((t) => [t.task_id, t.output]))
      : {};
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

    if (d.queue.length) {
      // One statement for the whole batch; try_number + 1 is what decideRun computed for each.
      const queued = await tx
        .updateTable("task_instance")
        .set({ state: "queued", try_number: sql`try_number + 1`, queued_at: now, next_retry_at: null, worker_id: null, updated_at: now, timeout_at: null })
        .where("dag_id", "=", dagId).where("run_id", "=", runId).where(sql<boolean>`task_id = any(${d.queue.map((q) => q.task_id)}::text[])`)
        .where((eb) => eb.or([eb("state", "is", null), eb("state", "=", "up_for_retry")]))
        .returning(["task_id", "try_number"])
        .execute();
      for (const q of queued) jobs.push({ dagId, runId, taskId: q.task_id, tryNumber: q.try_number, dagHash: run.dag_hash });
    }
    for (const [ids, state] of [[d.skip, "skipped"], [d.upstreamFailed, "upstream_failed"]] as const) {
      if (!ids.length) continue;
      await tx
        .updateTable("task_instance")
        .set({ state, start_date: sql`coalesce(start_date, ${now})`, end_date: now, duration: 0, updated_at: now })
        .where("dag_id", "=", dagId).where("run_id", "=", runId).where(sql<boolean>`task_id = any(${[...ids]}::text[])`)
        .execute();
    }
    const runUpdate = { evaluated_version: sql<number>`greatest(evaluated_version, ${run.version})`, last_scheduling_decision: now, updated_at: now };
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
