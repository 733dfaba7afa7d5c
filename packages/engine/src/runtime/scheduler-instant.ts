import type { Logger } from "@svc/logger";
import type { TaskJob } from "@svc/queue";
import type { RuntimeDeps } from "./deps";
import { enqueueTasks } from "./enqueue";
import { instantHandOff } from "./hand-off";
import { tryInstant } from "./instant-try";
import { leafChecks } from "./leaf-checks";
import { settleDeferred } from "./run-changed";
import { acquireTryBatcher } from "./task-claim";

/**
 * The scheduler finishes the instant tries (`noop`) that its own evaluations queue (a run's first
 * tasks, the downstream tasks of a decision) at once, with no job, as a worker does with the ones
 * its rounds queue (hand-off.ts), and as Airflow's scheduler does with `EmptyOperator` tasks, which
 * are "evaluated by the scheduler but never processed by the executor". Each finish lands in
 * Postgres (`queued → success`, guarded by the try number, in the process's shared svc_try_ops
 * rounds) before anything downstream of it is queued. The scheduler never claims: a try that turns
 * out not to finish instantly (its operator failed) gets its job, and a worker runs it. The other
 * tries get their jobs as before.
 */
export function schedulerInstantTries(base: Pick<RuntimeDeps, "config" | "logger">): { attach(deps: RuntimeDeps): RuntimeDeps; close(): Promise<void> } {
  const batcher = acquireTryBatcher(base.config.databaseUrl);
  const checks = leafChecks();
  const pending = new Set<Promise<unknown>>();
  let closing = false;
  const finish = async (deps: RuntimeDeps, job: TaskJob) => {
    let log: Logger | undefined;
    const instant = await tryInstant(deps, batcher.tries, job, () => (log ??= deps.logger.child({ dagId: job.dagId, runId: job.runId, taskId: job.taskId, try: job.tryNumber })));
    if (instant) await instant.finishing;
    else await enqueueTasks(deps.queues, [job]);
  };
  return {
    /** `deps` with this scheduler's hand-off of instant tries (and the tries' batcher and leaf checks it uses). */
    attach(deps) {
      const d: RuntimeDeps = { ...deps, tries: batcher.tries, leafChecks: checks };
      d.handOff = instantHandOff(
        d,
        (job) => {
          checks.begin(job);
          const p: Promise<unknown> = finish(d, job)
            .catch((e) => d.logger.error({ ...job, err: String(e) }, "instant try failed; reconciliation enqueues it"))
            .finally(() => settleDeferred(d, job))
            .finally(() => pending.delete(p));
          pending.add(p);
        },
        () => closing,
      );
      return d;
    },
    /** Stop finishing instant tries here (their jobs go to the queue) and wait for the ones under way. */
    async close() {
      closing = true;
      while (pending.size) await Promise.all([...pending]);
      await batcher.release();
    },
  };
}
