import type { Logger } from "@svc/logger";
import type { TaskJob } from "@svc/queue";
import { nowOf, type RuntimeDeps } from "./deps";
import type { HopQueued, TryBatcher, TryOutcome, Written } from "./task-claim";
import type { TaskFacts } from "./definition-cache";
import { enqueueTasks, sendTries } from "./enqueue";
import { releaseKept } from "./requeue-try";
import { evaluateIfDone, runChangedByTry } from "./run-changed";

export type TryResult = "dropped" | "lost" | TryOutcome["state"];

/**
 * Write a try's outcome with `write` (a guarded commit or an instant finish, retried while the
 * database is unreachable), then, if it matters, evaluate the run (the worker) or tell the scheduler.
 * The downstream tries its round queued (plain hops: `facts.hops`, sent with the write) get their
 * jobs here; a success that decides nothing else (`facts.joins`) needs no evaluation. A worker
 * slot may have the write claim one hop for it (deps.keepHop, `write`'s `keep`): only on the first
 * attempt, since a retried write cannot know whether a lost reply had claimed it.
 */
export async function finishTry(
  deps: RuntimeDeps,
  tries: TryBatcher,
  job: TaskJob,
  state: TryOutcome["state"],
  write: (keep?: string) => Promise<Written>,
  facts: Pick<TaskFacts, "hasDownstream" | "hops" | "joins">,
  log: () => Logger,
  instant = false,
): Promise<TryResult> {
  const keeper = state === "success" && facts.hops?.length ? deps.keepHop : undefined;
  const keep = keeper?.pick(job, facts.hops!);
  let retried = false;
  const { landed, queued } = await writeWithRetry((attempt) => ((retried ||= attempt > 0), write(attempt ? undefined : keep)), log);
  if (keep && retried) await putBackKept(deps, job, keep, log);
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
  for (const q of queued) if (q.claimed) keeper?.take(hopJob(job, q), q.claimed);
  const sent = queued.filter((q) => !q.claimed);
  if (sent.length) {
    const jobs = sent.map((q) => ({ ...hopJob(job, q), ...(q.host ? { host: q.host } : {}) }));
    // After commit; instant ones run in this worker at once (a crash leaves them to reconciliation, as a lost add).
    await sendTries(deps, jobs).catch((e) => log().error({ err: String(e) }, "enqueue of the next tasks failed; reconciliation will retry"));
  }
  // A success that decides nothing but its hops, all queued with it: no evaluation. Its joins wait
  // for another upstream: if this worker holds one of each, the last try of the run to settle here
  // evaluates instead (of two upstreams finishing together, the later sees both).
  if (state === "success" && facts.joins && queued.length === (facts.hops?.length ?? 0)) {
    if (!facts.joins.length || deps.leafChecks?.deferJoins(job, facts.joins)) return state;
  }
  const leaf = state !== "up_for_retry" && state !== "up_for_reschedule" && !facts.hasDownstream;
  if (leaf && deps.leafChecks?.defer(job)) return state;
  await (leaf ? evaluateIfDone(deps, tries, job) : runChangedByTry(deps, job));
  return state;
}

const hopJob = (job: TaskJob, q: HopQueued): TaskJob => ({
  dagId: q.dagId,
  runId: q.runId,
  taskId: q.taskId,
  tryNumber: q.tryNumber,
  ...(job.dagHash ? { dagHash: job.dagHash } : {}),
});

/** A hop that a lost reply may have claimed for this worker goes back to queued, and to its queue. */
async function putBackKept(deps: RuntimeDeps, job: TaskJob, taskId: string, log: () => Logger): Promise<void> {
  try {
    const jobs = await releaseKept(deps.db, nowOf(deps), job, taskId, deps.instanceId);
    if (!jobs.length) return;
    log().warn({ hop: taskId }, "a retried commit's kept downstream was claimed by a lost reply; queued again");
    await enqueueTasks(
      deps.queues,
      jobs.map((j) => ({ ...j, ...(job.dagHash ? { dagHash: job.dagHash } : {}) })),
    );
  } catch (e) {
    log().error({ hop: taskId, err: String(e) }, "kept downstream not put back; it stays running until this worker stops, then it is reaped and retried");
  }
}

/** Waits between commit attempts when the database is unreachable (about a minute in all). */
const COMMIT_RETRY_MS = [200, 500, 1000, 2000, 5000, 10_000, 10_000, 15_000, 15_000];

/**
 * A failed commit (database restarting, connection lost) is retried: the worker is alive, so the
 * try would otherwise stay running with no zombie reaper to close it. A retry after a commit whose
 * reply was lost finds the try already closed and reports it lost, which changes nothing.
 */
async function writeWithRetry<T>(write: (attempt: number) => Promise<T>, log: () => Logger): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write(attempt);
    } catch (e) {
      const wait = COMMIT_RETRY_MS[attempt];
      if (wait === undefined) throw e;
      log().warn({ err: String(e), attempt: attempt + 1, retryInMs: wait }, "try outcome commit failed; retrying");
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
