import { taskJobId, type Queues, type TaskJob } from "@svc/queue";

/** Task jobs are removed when done, so their deterministic id is free for reconciliation to reuse. */
const TASK_JOB_OPTS = { removeOnComplete: true, removeOnFail: true, attempts: 1 } as const;

/** Enqueue task tries; the deterministic job id makes a duplicate enqueue a no-op. */
export async function enqueueTasks(queues: Pick<Queues, "tasks">, jobs: TaskJob[]): Promise<void> {
  if (!jobs.length) return;
  await queues.tasks.addBulk(jobs.map((data) => ({ name: "ti", data, opts: { ...TASK_JOB_OPTS, jobId: taskJobId(data) } })));
}
