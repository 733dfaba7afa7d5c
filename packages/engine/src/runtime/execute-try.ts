import { renderArgs } from "@svc/dags";
import { NonRetryableError } from "@svc/errors";
import type { TaskJob } from "@svc/queue";
import { canRetry, retryDelayMs } from "../core/retry";
import { commitTry, tryBatcher, type TryOutcome } from "./task-claim";
import { runDefinition, readsOutputs } from "./definition-cache";
import { createLogWriter } from "./log-writer";
import { nowOf, type RuntimeDeps } from "./deps";
import { templateContext } from "./template-context";

export type TryResult = "dropped" | "lost" | TryOutcome["state"];

class TaskTimeoutError extends Error {
  constructor(ms: number) {
    super(`execution_timeout of ${ms / 1000}s exceeded; task killed`);
  }
}

/**
 * Run one try end to end: claim, render args, run the operator with streamed logs and the
 * execution timeout, commit the outcome (guarded), signal the scheduler.
 */
export async function executeTry(deps: RuntimeDeps, job: TaskJob, cancel?: AbortSignal): Promise<TryResult> {
  const log = deps.logger.child({ dagId: job.dagId, runId: job.runId, taskId: job.taskId, try: job.tryNumber });
  const tries = tryBatcher(deps.db, () => nowOf(deps));
  const claimed = await tries.claim(job, deps.instanceId);
  if (!claimed) {
    log.debug("try not claimable (duplicate delivery or already handled)");
    return "dropped";
  }
  const run = claimed;
  const dag = await runDefinition(deps.db, job.dagId, job.runId, run.dag_hash);
  const task = dag?.tasks.find((t) => t.task_id === job.taskId);
  if (!task) {
    await commitTry(deps.db, job, deps.instanceId, nowOf(deps), { state: "failed", error: `task '${job.taskId}' is not in the run's DAG definition` });
    return "failed";
  }
  const writer = createLogWriter(deps.db, job, (e) => log.error({ err: String(e) }, "log write failed"));
  writer.write(`try ${job.tryNumber} of ${claimed.max_tries + 1} started on ${claimed.hostname} (worker ${deps.instanceId}, operator ${task.operator})`, "system");

  const ac = new AbortController();
  const onCancel = () => ac.abort(new Error("cancelled"));
  cancel?.addEventListener("abort", onCancel, { once: true });
  const timer = task.execution_timeout_ms ? setTimeout(() => ac.abort(new TaskTimeoutError(task.execution_timeout_ms!)), task.execution_timeout_ms) : null;

  let outcome: TryOutcome;
  try {
    const op = deps.operators.get(task.operator);
    if (!op) throw new NonRetryableError(`unknown operator '${task.operator}'`);
    const upstream = readsOutputs(task.args)
      ? await deps.db.selectFrom("task_instance").select(["task_id", "output"]).where("dag_id", "=", job.dagId).where("run_id", "=", job.runId).where("state", "=", "success").execute()
      : [];
    let args: unknown;
    try {
      args = renderArgs(task.args, templateContext(run, Object.fromEntries(upstream.map((u) => [u.task_id, u.output]))));
    } catch (e) {
      throw new NonRetryableError(`cannot render args: ${(e as Error).message}`);
    }
    const parsed = op.args.safeParse(args);
    if (!parsed.success) throw new NonRetryableError(`invalid args: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const result = await abortable(op.run(parsed.data, { dagId: job.dagId, runId: job.runId, taskId: job.taskId, tryNumber: job.tryNumber, params: (run.conf ?? {}) as Record<string, unknown>, config: deps.config, log: (l, s) => writer.write(l, s), signal: ac.signal }), ac.signal);
    outcome = { state: "success", output: result ?? {} };
    writer.write("task succeeded", "system");
  } catch (e) {
    const err = ac.signal.aborted && ac.signal.reason instanceof Error ? ac.signal.reason : (e as Error);
    const retryable = !(err instanceof NonRetryableError) && canRetry(job.tryNumber, claimed.max_tries);
    const msg = err?.message ?? String(err);
    writer.write(`task failed: ${msg}`, "system");
    if (retryable) {
      const delay = retryDelayMs(task, job.tryNumber);
      outcome = { state: "up_for_retry", error: msg, nextRetryAt: new Date(nowOf(deps).getTime() + delay) };
      writer.write(`will retry in ${delay / 1000}s (try ${job.tryNumber + 1} of ${claimed.max_tries + 1})`, "system");
    } else {
      outcome = { state: "failed", error: msg };
    }
  } finally {
    if (timer) clearTimeout(timer);
    cancel?.removeEventListener("abort", onCancel);
  }
  const committed = await tries.commit({ job, workerId: deps.instanceId, outcome, logs: await writer.detach() });
  if (!committed) {
    log.warn("try outcome not committed: the try was taken over (worker declared lost) or the run was changed");
    return "lost";
  }
  log.info({ state: outcome.state }, "try finished");
  if (await needsEvaluation(deps, job, outcome.state, dag!.tasks.some((t) => t.depends_on.includes(job.taskId)))) {
    // Version 0: "evaluate after this commit", never skipped or merged with an earlier event.
    await deps.notifier.runChanged(job.dagId, job.runId, 0);
  }
  return outcome.state;
}

/** Resolve/reject with the operator, but reject as soon as the signal aborts (timeouts must not wait on a stuck operator). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Whether this outcome can change a scheduling decision. A successful or failed leaf task while
 * other tasks are unfinished changes nothing, so wide fan-outs do not flood the scheduler. Checked
 * after our own commit: of two leaves finishing together, the later to commit sees the run done.
 * (Reconciliation re-evaluates every running run, so nothing missed here is lost.)
 */
async function needsEvaluation(deps: RuntimeDeps, job: TaskJob, state: TryOutcome["state"], hasDownstream: boolean): Promise<boolean> {
  if (state === "up_for_retry" || hasDownstream) return true;
  const open = await deps.db
    .selectFrom("task_instance").select("task_id")
    .where("dag_id", "=", job.dagId).where("run_id", "=", job.runId)
    .where((eb) => eb.or([eb("state", "is", null), eb("state", "not in", ["success", "failed", "skipped", "upstream_failed"])]))
    .limit(1)
    .executeTakeFirst();
  return !open;
}
