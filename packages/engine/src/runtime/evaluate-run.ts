import { evaluateCondition, type TaskDefinition } from "@svc/dags";
import { jobDagHash, type TaskJob } from "@svc/queue";
import { decideRun, type RunDecision } from "../core/decide";
import { sendTries } from "./enqueue";
import { nowOf, type RuntimeDeps } from "./deps";
import { runDefinition, readsOutputs, rememberDefinition } from "./definition-cache";
import { applyDecision, readRun, type RunRead } from "./run-read";
import { takePrimedRead } from "./primed-read";
import { successOutputs, templateContext } from "./template-context";

export interface EvaluateResult {
  evaluated: boolean;
  queued: number;
  runState?: string;
}

type EvalDeps = Pick<RuntimeDeps, "db" | "queues" | "notifier" | "logger" | "clock" | "handOff">;

/** Reads that an API write overtakes before their decision lands; then the next event or reconciliation decides. */
const MAX_ATTEMPTS = 5;

/**
 * Evaluate one running run: read it without locks, decide with the pure function, apply the
 * decision in one statement that lands only if the run is unchanged for it (svc_apply_decision),
 * then enqueue the tries it queued. Two round trips in all (one for a run just started, whose
 * start returned its read: primed-read.ts); skips versions already evaluated.
 */
export async function evaluateRun(deps: EvalDeps, dagId: string, runId: string, minVersion = 0): Promise<EvaluateResult> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const now = nowOf(deps);
    // The first pass over a run just started decides from what its start returned (no read).
    const run = (attempt === 1 && takePrimedRead(dagId, runId)) || (await readRun(deps.db, dagId, runId, minVersion));
    if (!run || run.state !== "running") return { evaluated: false, queued: 0 };
    if (minVersion && run.evaluated_version >= minVersion) return { evaluated: false, queued: 0 };
    // Nothing waits to start and tasks are unfinished: no decision can change. Read-only on
    // purpose (no commit to flush); reconciliation re-checks such runs cheaply.
    if (!run.tis) return { evaluated: true, queued: 0, runState: "running" };
    const d = await decide(deps, run, run.tis, now);
    if (!d) return { evaluated: false, queued: 0 };
    const idle = !d.queue.length && !d.skip.length && !d.upstreamFailed.length && d.runState === "running";
    // A decision with nothing in it is written only to record a version not yet evaluated.
    const applied = idle && run.evaluated_version >= run.version ? { queued: [], dagHasQueuedRuns: false } : await applyDecision(deps.db, run, d, now);
    if (!applied) continue; // an API write overtook the read: read again
    const { queued } = applied;
    const jobs: TaskJob[] = queued.map((q) => {
      const host = run.hosts?.get(q.task_id);
      return { dagId, runId, taskId: q.task_id, tryNumber: q.try_number, dagHash: jobDagHash(run.dag_hash), ...(host ? { host } : {}) };
    });
    // After commit (a failed add is reconciliation's); a worker's evaluation runs the instant ones itself.
    await sendTries(deps, jobs).catch((e) => deps.logger.error({ dagId, runId, err: String(e) }, "enqueue failed; reconciliation will retry"));
    if (d.runState !== "running") {
      deps.logger.info({ dagId, runId, state: d.runState }, "run finished");
      // The freed slot matters only to a DAG with queued runs (the decision's statement asked; a
      // run queued after it notifies by itself): most run ends send no event and cost no pass.
      if (applied.dagHasQueuedRuns) await deps.notifier.dagChanged(dagId);
    }
    if (d.wakeAt) await scheduleWake(deps, dagId, runId, d.wakeAt, now);
    return { evaluated: true, queued: jobs.length, runState: d.runState };
  }
  deps.logger.warn({ dagId, runId, attempts: MAX_ATTEMPTS }, "run changed under every evaluation; the next event or reconciliation evaluates it");
  return { evaluated: false, queued: 0 };
}

/** Evaluate a run through the scheduler's per-run pass when there is one (deps.evaluate), else directly. */
export async function evaluateShared(deps: EvalDeps & Pick<RuntimeDeps, "evaluate">, dagId: string, runId: string): Promise<void> {
  if (deps.evaluate) await deps.evaluate(dagId, runId, 0);
  else await evaluateRun(deps, dagId, runId);
}

/** The pure decision for a read run, with its `when` conditions (and upstream outputs, if they read any). */
async function decide(deps: EvalDeps, run: RunRead, tis: NonNullable<RunRead["tis"]>, now: Date): Promise<RunDecision | undefined> {
  const dag = await runDefinition(deps.db, run.dag_id, run.run_id, run.dag_hash);
  if (!dag) return undefined;
  // Also under the jobs' short hash: this process's hand-off knows the tries it queues (isInstantTry).
  rememberDefinition(jobDagHash(run.dag_hash), dag);
  const needOutputs = dag.tasks.some((t) => t.when && readsOutputs(t.when));
  const outputs = needOutputs ? await successOutputs(deps.db, run.dag_id, run.run_id) : {};
  const ctx = templateContext(run, outputs);
  const when = (task: TaskDefinition) => {
    if (!task.when) return true;
    try {
      return evaluateCondition(task.when, ctx);
    } catch (e) {
      // A condition that cannot be evaluated is false: the branch is skipped, and the reason logged.
      deps.logger.warn({ dagId: run.dag_id, runId: run.run_id, taskId: task.task_id, err: String(e) }, "when condition failed; skipping task");
      return false;
    }
  };
  return decideRun(dag, tis, now, when);
}

/** A delayed evaluation for the earliest retry time (reconciliation also covers it if Redis loses it). */
async function scheduleWake(deps: EvalDeps, dagId: string, runId: string, at: Date, now: Date): Promise<void> {
  const delay = Math.max(0, at.getTime() - now.getTime());
  const jobId = `wake|${dagId.replace(/[|:]/g, "_")}|${runId.replace(/[|:]/g, "_")}|${at.getTime()}`;
  await deps.queues.scheduler
    .add("run", { kind: "run", dagId, runId, version: 0 }, { jobId, delay, removeOnComplete: true, removeOnFail: 100 })
    .catch((e) => deps.logger.warn({ dagId, runId, err: String(e) }, "could not schedule retry wake-up"));
}
