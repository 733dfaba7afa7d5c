import { runEvalJobId, type Queues, type SchedulerJob } from "@svc/queue";

/**
 * How engine writes tell the scheduler that something changed. Every write that changes task
 * instances of a run bumps `dag_run.version` in the same transaction, then calls runChanged with
 * the new version after commit. Anything that may let a queued run start (trigger, unpause, run end)
 * calls dagChanged.
 */
export interface Notifier {
  runChanged(dagId: string, runId: string, version: number): Promise<void>;
  dagChanged(dagId: string): Promise<void>;
}

const JOB_OPTS = { removeOnComplete: true, removeOnFail: 1000, attempts: 3, backoff: { type: "fixed", delay: 200 } } as const;

/** Notifier over the BullMQ `scheduler` queue. Failures are swallowed: reconciliation re-evaluates. */
export function createQueueNotifier(queues: Pick<Queues, "scheduler">, onError: (e: unknown) => void = () => undefined): Notifier {
  const add = async (job: SchedulerJob, jobId: string, delay?: number) => {
    try {
      await queues.scheduler.add(job.kind, job, { ...JOB_OPTS, jobId, ...(delay ? { delay } : {}) });
    } catch (e) {
      onError(e);
    }
  };
  return {
    runChanged: (dagId, runId, version) => add({ kind: "run", dagId, runId, version }, runEvalJobId(dagId, runId, version)),
    // Not coalesced by id: a dag event must never be swallowed by one already being processed.
    dagChanged: (dagId) => add({ kind: "dag", dagId }, `dag|${dagId.replace(/[|:]/g, "_")}|${Date.now()}|${Math.random().toString(36).slice(2, 8)}`),
  };
}

/** A notifier that does nothing (CLI tools that only read, unit tests of pure parts). */
export const nullNotifier: Notifier = { runChanged: async () => undefined, dagChanged: async () => undefined };
