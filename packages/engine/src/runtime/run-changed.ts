import type { TaskJob } from "@svc/queue";
import type { RuntimeDeps } from "./deps";
import { withPrimedRead } from "./primed-read";
import type { RunRead } from "./run-read";
import type { TryBatcher } from "./task-claim";

/**
 * After a try's outcome landed and it may change a decision: evaluate the run in this process
 * (the worker's per-run pass, deps.evaluate) and enqueue what it queued, without a round trip
 * through the scheduler. The outcome is in Postgres before the read, so the evaluation sees it;
 * evaluations are safe to overlap across processes (svc_apply_decision's guards). If it fails,
 * the scheduler is told as before; reconciliation stays the backstop for a crash in between.
 * `read`: the run as the round that found it without unfinished tasks read it (its end's
 * evaluation then needs no read of its own).
 */
export async function runChangedByTry(deps: Pick<RuntimeDeps, "evaluate" | "notifier" | "logger">, job: Pick<TaskJob, "dagId" | "runId">, read?: RunRead): Promise<void> {
  if (deps.evaluate) {
    try {
      // The highest version: "evaluate after this commit", never skipped as already evaluated.
      const evaluate = deps.evaluate;
      const pass = () => evaluate(job.dagId, job.runId, Number.MAX_SAFE_INTEGER);
      await (read ? withPrimedRead(read, pass) : pass());
      return;
    } catch (e) {
      deps.logger.warn({ dagId: job.dagId, runId: job.runId, err: String(e) }, "evaluation after a try's outcome failed; the scheduler evaluates the run");
    }
  }
  // Version 0: "evaluate after this commit", never skipped or merged with an earlier event.
  await deps.notifier.runChanged(job.dagId, job.runId, 0);
}

/**
 * After a leaf's outcome landed: ask whether its run still has unfinished tasks, and if not,
 * evaluate the run's end from the read the check returned (migration 017).
 */
export async function evaluateIfDone(
  deps: Pick<RuntimeDeps, "evaluate" | "notifier" | "logger">,
  tries: Pick<TryBatcher, "checkRun">,
  job: Pick<TaskJob, "dagId" | "runId">,
): Promise<void> {
  const check = await tries.checkRun(job);
  if (!check.open) await runChangedByTry(deps, job, check.read);
}

/**
 * The last try of a run to settle in this process asks what the run's leaves deferred to it, or
 * evaluates the run for the successes whose joins deferred to it (leaf-checks.ts). A failure is
 * logged: reconciliation evaluates the run.
 */
export async function settleDeferred(deps: Pick<RuntimeDeps, "evaluate" | "notifier" | "logger" | "leafChecks" | "tries">, job: TaskJob): Promise<void> {
  const owed = deps.leafChecks!.end(job);
  if (!owed) return;
  try {
    await (owed === "evaluate" ? runChangedByTry(deps, job) : evaluateIfDone(deps, deps.tries!, job));
  } catch (e) {
    deps.logger.warn({ ...job, err: String(e) }, "deferred check failed; reconciliation will evaluate the run");
  }
}
