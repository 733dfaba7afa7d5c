import { taskJobId, type Queues, type TaskJob } from "@svc/queue";
import type { RuntimeDeps } from "./deps";

/** Task jobs are removed when done, so their deterministic id is free for reconciliation to reuse. */
const TASK_JOB_OPTS = { removeOnComplete: true, removeOnFail: true, attempts: 1 } as const;

/**
 * Jobs per `addBulk`. A bulk add is one Redis transaction: none of its jobs can be taken before the
 * last is added, so a 1000-task fan-out in one transaction kept every worker idle for the whole add
 * (~70 ms here). Chunks go out one after another on one connection, so Redis runs them in order;
 * the process yields between chunks (preparing a chunk is most of an add's cost), so workers of
 * this process start on the first chunk while the rest is prepared: the first task of a
 * 1000-task fan-out started ~90 → ~25 ms after the decision landed.
 */
export const ENQUEUE_CHUNK = 100;

/**
 * Enqueue task tries; the deterministic job id makes a duplicate enqueue a no-op. A try routed to a
 * hypervisor host (job.host) goes to that host's queue, the others to `tasks`.
 */
export async function enqueueTasks(queues: Pick<Queues, "forTask">, jobs: TaskJob[]): Promise<void> {
  if (!jobs.length) return;
  const routed = jobs.some((j) => j.host);
  if (routed) {
    const byHost = new Map<string | undefined, TaskJob[]>();
    for (const j of jobs) byHost.set(j.host, [...(byHost.get(j.host) ?? []), j]);
    await Promise.all([...byHost.values()].map((group) => enqueueOn(queues, group)));
  } else await enqueueOn(queues, jobs);
}

/**
 * Send the tries a round or an evaluation queued: a worker runs the instant ones itself
 * (deps.handOff), the others get their jobs. After the commit that queued them: if the add fails,
 * reconciliation enqueues queued tries without a job.
 */
export async function sendTries(deps: Pick<RuntimeDeps, "queues" | "handOff">, jobs: TaskJob[]): Promise<void> {
  await enqueueTasks(deps.queues, deps.handOff ? deps.handOff(jobs) : jobs);
}

/** Jobs of one queue, in chunks. */
async function enqueueOn(queues: Pick<Queues, "forTask">, jobs: TaskJob[]): Promise<void> {
  const queue = queues.forTask(jobs[0]!);
  const adds: Promise<unknown>[] = [];
  for (let i = 0; i < jobs.length; i += ENQUEUE_CHUNK) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    const add = queue.addBulk(jobs.slice(i, i + ENQUEUE_CHUNK).map((data) => ({ name: "ti", data, opts: { ...TASK_JOB_OPTS, jobId: taskJobId(data) } })));
    // Handled at once: a chunk that fails while the next is prepared (Redis went away) would
    // otherwise be an unhandled rejection, which ends the process. Promise.all still reports it.
    add.catch(() => undefined);
    adds.push(add);
  }
  await Promise.all(adds);
}
