import { renderArgs } from "@svc/dags";
import { NonRetryableError } from "@svc/errors";
import type { Logger } from "@svc/logger";
import type { TaskJob } from "@svc/queue";
import { decideFailure } from "../core/retry";
import { isRescheduleTry, type RescheduleTry } from "../ports/reschedule";
import { commitTry, tryBatcher, type TryBatcher, type TryOutcome } from "./task-claim";
import type { ClaimedTry } from "./try-ops";
import { finishTry, type TryResult } from "./finish-try";
import { NEVER, tryInstant } from "./instant-try";
import { runDefinition, taskFacts, type TaskFacts } from "./definition-cache";
import { createLogWriter, type LogWriter } from "./log-writer";
import { handBackTry, WorkerStoppingError } from "./requeue-try";
import { nowOf, type RuntimeDeps } from "./deps";
import { successOutputs, templateContext } from "./template-context";
import { createDagRunsPort } from "./dag-runs-port";
import { hostForTry, moveTry, TryRoutedAway } from "./route-try";

export type { TryResult } from "./finish-try";

/**
 * Takes over the commit of a finished try (the worker tracks it), so the slot is free at once.
 * `hops`: the commit's round may queue plain downstream tries (a success with hops), which the
 * worker may want to wait for, to run one of them in the same slot.
 */
export type DetachCommit = (finishing: Promise<TryResult>, hops: boolean) => void;

/** Args without templates are rendered against nothing (they read no variable). */
const NO_TEMPLATES = { params: {} };

class TaskTimeoutError extends Error {
  constructor(ms: number) {
    super(`execution_timeout of ${ms / 1000}s exceeded; task killed`);
  }
}

/**
 * Run one try end to end: claim (unless `kept`: claimed already), render args, run the operator with streamed logs and the
 * execution timeout, commit the outcome (guarded), signal the scheduler. With `detach`, the commit
 * and the signal go on after this returns "detached": the queue job may complete before the outcome
 * is in Postgres, which is safe because Postgres, not the queue, says what ran (a crash in between
 * leaves a running try of a dead worker: a zombie, retried).
 */
export async function executeTry(deps: RuntimeDeps, job: TaskJob, cancel?: AbortSignal, detach?: DetachCommit, kept?: ClaimedTry): Promise<TryResult | "detached" | "routed"> {
  // Child loggers are made on first use: most tries log once, at the end.
  let logger: Logger | undefined;
  const log = () => (logger ??= deps.logger.child({ dagId: job.dagId, runId: job.runId, taskId: job.taskId, try: job.tryNumber }));
  const tries = deps.tries ?? tryBatcher(deps.db, () => nowOf(deps));
  const instant = kept ? undefined : await tryInstant(deps, tries, job, log);
  if (instant) {
    if (!detach) return instant.finishing;
    detach(instant.finishing, instant.hops);
    return "detached";
  }
  // A kept hop was claimed for this worker by the round that landed its upstream (migration 018).
  const claimed = kept ?? (await tries.claim(job, deps.instanceId));
  if (!claimed) {
    log().debug("try not claimable (duplicate delivery or already handled)");
    return "dropped";
  }
  const dag = await runDefinition(deps.db, job.dagId, job.runId, claimed.dag_hash);
  const facts = dag && taskFacts(dag, job.taskId);
  if (!facts) {
    await commitTry(deps.db, job, deps.instanceId, nowOf(deps), { state: "failed", error: `task '${job.taskId}' is not in the run's DAG definition` });
    return "failed";
  }
  const writer = createLogWriter(deps.db, job, (e) => log().warn({ err: String(e) }, "log write failed; the lines are kept and retried"), {
    maxBytes: deps.config.limits.logMaxBytesPerTry,
  });
  writer.write(`try ${job.tryNumber} of ${claimed.max_tries + 1} started on ${claimed.hostname} (worker ${deps.instanceId}, operator ${facts.task.operator})`, "system");
  const limit = tryLimit(facts.task.execution_timeout_ms, cancel);
  // Undefined: the worker is stopping and hands the try back instead of settling it.
  let outcome: TryOutcome | undefined;
  let routed: string | undefined;
  try {
    outcome = { state: "success", output: (await runOperator(deps, job, claimed, facts, writer, limit.signal)) ?? {} };
    writer.write("task succeeded", "system");
  } catch (e) {
    if (e instanceof TryRoutedAway) routed = e.host;
    const aborted = limit.signal.aborted && limit.signal.reason instanceof Error;
    outcome = routed
      ? undefined
      : isRescheduleTry(e) && !aborted
        ? rescheduledOutcome(deps, writer, e)
        : failedOutcome(deps, job, claimed.max_tries, facts.task, writer, aborted ? (limit.signal.reason as Error) : (e as Error));
  } finally {
    limit.dispose();
  }
  if (routed !== undefined) return moveTry(deps, job, routed, writer);
  const resumable = deps.operators.get(facts.task.operator)?.resumable === true;
  return settle(deps, tries, job, writer, outcome, facts, log, detach, resumable);
}

/**
 * The operator's signal: the caller's cancel signal as it is, unless an execution timeout needs a
 * controller of its own (AbortControllers are not free, and most tasks have no timeout).
 */
function tryLimit(timeoutMs: number | null | undefined, cancel?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  if (!timeoutMs) return { signal: cancel ?? NEVER, dispose: () => undefined };
  const ac = new AbortController();
  const onCancel = () => ac.abort(cancel?.reason ?? new Error("cancelled"));
  cancel?.addEventListener("abort", onCancel, { once: true });
  const timer = setTimeout(() => ac.abort(new TaskTimeoutError(timeoutMs)), timeoutMs);
  return {
    signal: ac.signal,
    dispose() {
      clearTimeout(timer);
      cancel?.removeEventListener("abort", onCancel);
    },
  };
}

/** Render the task's args against the run, check them against the operator's schema, run it. */
async function runOperator(deps: RuntimeDeps, job: TaskJob, run: ClaimedTry, facts: TaskFacts, writer: LogWriter, signal: AbortSignal): Promise<unknown> {
  const task = facts.task;
  const op = deps.operators.get(task.operator);
  if (!op) throw new NonRetryableError(`unknown operator '${task.operator}'`);
  const outputs = facts.readsOutputs ? await successOutputs(deps.db, job.dagId, job.runId) : {};
  const note = facts.readsNote
    ? (await deps.db.selectFrom("dag_run").select("note").where("dag_id", "=", job.dagId).where("run_id", "=", job.runId).executeTakeFirst())?.note
    : undefined;
  let args: unknown;
  try {
    args = renderArgs(task.args, facts.templated ? templateContext(run, outputs, note) : NO_TEMPLATES);
  } catch (e) {
    throw new NonRetryableError(`cannot render args: ${(e as Error).message}`);
  }
  const parsed = op.args.safeParse(args);
  if (!parsed.success) throw new NonRetryableError(`invalid args: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  if (task.queue !== undefined && !deps.hosts) throw new NonRetryableError(`the task's queue is '${task.queue}', but this worker routes no hosts`);
  const routed = (op.hostScoped || task.queue !== undefined) && deps.hosts;
  const where = routed ? await hostForTry(deps, job, task.operator, parsed.data as Record<string, unknown>, writer, task.queue) : undefined;
  // A task that is not host-scoped only runs on its queue's worker; it does not act on the host.
  const host = op.hostScoped ? where : undefined;
  const ctx = {
    dagId: job.dagId,
    runId: job.runId,
    taskId: job.taskId,
    tryNumber: job.tryNumber,
    params: run.conf ?? {},
    config: deps.config,
    signal,
    dagRuns: createDagRunsPort(deps, job),
    ...(host ? { host } : {}),
  };
  return abortable(op.run(parsed.data, { ...ctx, log: (l, s) => writer.write(l, s) }), signal);
}

/** A failed try's outcome by the retry policy (core/retry), logged; undefined when the worker is stopping (handed back). */
function failedOutcome(deps: RuntimeDeps, job: TaskJob, maxTries: number, task: TaskFacts["task"], writer: LogWriter, err: Error): TryOutcome | undefined {
  if (err instanceof WorkerStoppingError) return undefined;
  const msg = err?.message ?? String(err);
  writer.write(`task failed: ${msg}`, "system");
  const d = decideFailure(msg, !(err instanceof NonRetryableError), task, job.tryNumber, maxTries, nowOf(deps));
  if (d.state === "failed") return d;
  writer.write(`will retry in ${d.delayMs / 1000}s (try ${job.tryNumber + 1} of ${maxTries + 1})`, "system");
  return { state: d.state, error: d.error, nextRetryAt: d.nextRetryAt };
}

/** A try that asked to run again later at the same try number (a poke that found its wait not over). */
function rescheduledOutcome(deps: RuntimeDeps, writer: LogWriter, r: RescheduleTry): TryOutcome {
  writer.write(`rescheduled: this try runs again in ${r.delaySeconds}s, its worker slot free meanwhile`, "system");
  return { state: "up_for_reschedule", output: r.output, nextRetryAt: new Date(nowOf(deps).getTime() + r.delaySeconds * 1000) };
}

/**
 * Commit a try's outcome with the log lines not yet written, or (no outcome: the worker is
 * stopping) hand the try back so another worker runs it at once without using a retry.
 */
async function settle(
  deps: RuntimeDeps,
  tries: TryBatcher,
  job: TaskJob,
  writer: LogWriter,
  outcome: TryOutcome | undefined,
  facts: TaskFacts,
  log: () => Logger,
  detach?: DetachCommit,
  resumable = false,
): Promise<TryResult | "detached"> {
  const logs = await writer.detach();
  const hops = outcome?.state === "success" ? facts.hops : undefined;
  const write = outcome
    ? (keep?: string) => tries.commit({ job, workerId: deps.instanceId, outcome, logs, hops, ...(keep ? { keep } : {}) })
    : async () => ({ landed: await handBackTry(deps.db, nowOf(deps), job, deps.instanceId, logs, resumable), queued: [] });
  const finishing = finishTry(deps, tries, job, outcome?.state ?? (resumable ? "up_for_reschedule" : "up_for_retry"), write, facts, log);
  if (!detach) return finishing;
  detach(finishing, !!hops?.length);
  return "detached";
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
