import type { Logger } from "@svc/logger";
import type { TaskJob } from "@svc/queue";
import type { RuntimeDeps } from "./deps";
import type { TryBatcher, TryOutcome } from "./task-claim";
import { runChangedByTry } from "./run-changed";

export type TryResult = "dropped" | "lost" | TryOutcome["state"];

/**
 * Write a try's outcome with `write` (a guarded commit or an instant finish, retried while the
 * database is unreachable), then, if it matters, evaluate the run (the worker) or tell the scheduler.
 */
export async function finishTry(
  deps: RuntimeDeps,
  tries: TryBatcher,
  job: TaskJob,
  state: TryOutcome["state"],
  write: () => Promise<boolean>,
  hasDownstream: boolean,
  log: () => Logger,
  instant = false,
): Promise<TryResult> {
  const landed = await writeWithRetry(write, log);
  if (!landed) {
    if (instant) {
      log().debug("instant try not finished: no longer queued at this try (duplicate delivery or run changed)");
      return "dropped";
    }
    log().warn("try outcome not committed: the try was taken over (worker declared lost) or the run was changed");
    return "lost";
  }
  if (deps.logger.isLevelEnabled("info")) log().info({ state, ...(instant ? { instant } : {}) }, "try finished");
  // A leaf's success or failure changes no decision while other tasks of its run are unfinished,
  // so wide fan-outs do not flood the scheduler. Asked after our commit: of two leaves finishing
  // together, the later to ask sees both done. A worker holding another try of the run leaves the
  // question to it (leaf-checks.ts). (Reconciliation re-evaluates every running run.)
  const leaf = state !== "up_for_retry" && state !== "up_for_reschedule" && !hasDownstream;
  if (leaf && deps.leafChecks?.defer(job)) return state;
  if (!leaf || !(await tries.runOpen(job))) await runChangedByTry(deps, job);
  return state;
}

/** Waits between commit attempts when the database is unreachable (about a minute in all). */
const COMMIT_RETRY_MS = [200, 500, 1000, 2000, 5000, 10_000, 10_000, 15_000, 15_000];

/**
 * A failed commit (database restarting, connection lost) is retried: the worker is alive, so the
 * try would otherwise stay running with no zombie reaper to close it. A retry after a commit whose
 * reply was lost finds the try already closed and reports it lost, which changes nothing.
 */
async function writeWithRetry(write: () => Promise<boolean>, log: () => Logger): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      const wait = COMMIT_RETRY_MS[attempt];
      if (wait === undefined) throw e;
      log().warn({ err: String(e), attempt: attempt + 1, retryInMs: wait }, "try outcome commit failed; retrying");
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
