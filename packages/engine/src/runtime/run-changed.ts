import type { TaskJob } from "@svc/queue";
import type { RuntimeDeps } from "./deps";

/**
 * After a try's outcome landed and it may change a decision: evaluate the run in this process
 * (the worker's per-run pass, deps.evaluate) and enqueue what it queued, without a round trip
 * through the scheduler. The outcome is in Postgres before the read, so the evaluation sees it;
 * evaluations are safe to overlap across processes (svc_apply_decision's guards). If it fails,
 * the scheduler is told as before; reconciliation stays the backstop for a crash in between.
 */
export async function runChangedByTry(deps: Pick<RuntimeDeps, "evaluate" | "notifier" | "logger">, job: Pick<TaskJob, "dagId" | "runId">): Promise<void> {
  if (deps.evaluate) {
    try {
      // The highest version: "evaluate after this commit", never skipped as already evaluated.
      await deps.evaluate(job.dagId, job.runId, Number.MAX_SAFE_INTEGER);
      return;
    } catch (e) {
      deps.logger.warn({ dagId: job.dagId, runId: job.runId, err: String(e) }, "evaluation after a try's outcome failed; the scheduler evaluates the run");
    }
  }
  // Version 0: "evaluate after this commit", never skipped or merged with an earlier event.
  await deps.notifier.runChanged(job.dagId, job.runId, 0);
}
