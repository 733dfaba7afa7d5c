import { runEvalJobId, type Queues, type SchedulerJob } from "@svc/queue";

/**
 * How engine writes tell the scheduler that something changed, always after commit. API writes that
 * change a run's task instances bump `dag_run.version` in the same transaction and pass it: events
 * for an already evaluated version are skipped. Version 0 (worker outcomes) means "evaluate after
 * this commit" and is never skipped or merged. Anything that may let a queued run start (trigger,
 * unpause, run end) calls dagChanged; a change of the DAG's schedule or pause state (the DAG
 * processor, an unpause) passes `{ schedule: true }` so that its cron scheduler is synced as well.
 */
export interface Notifier {
  runChanged(dagId: string, runId: string, version: number): Promise<void>;
  dagChanged(dagId: string, opts?: DagChange): Promise<void>;
}

export interface DagChange {
  /** The DAG's schedule or pause state may have changed: sync its cron scheduler too. */
  schedule?: boolean;
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
    runChanged: (dagId, runId, version) => add({ kind: "run", dagId, runId, version }, version ? runEvalJobId(dagId, runId, version) : uniqueId("run", dagId)),
    // Not coalesced by id: a dag event must never be swallowed by one already being processed.
    dagChanged: (dagId, opts) => add({ kind: "dag", dagId, ...(opts?.schedule ? { schedule: true } : {}) }, uniqueId("dag", dagId)),
  };
}

let seq = 0;
const uniqueId = (kind: string, dagId: string) => `${kind}|${dagId.replace(/[|:]/g, "_")}|${process.pid}|${Date.now()}|${++seq}`;

/** A notifier that does nothing (CLI tools that only read, unit tests of pure parts). */
export const nullNotifier: Notifier = { runChanged: async () => undefined, dagChanged: async () => undefined };
