import { taskJobId, taskQueueName, type Queues, type TaskJob } from "@svc/queue";

/** Keys per EXISTS: one command counts a whole chunk of job hashes. */
const EXISTS_CHUNK = 500;

/**
 * The jobs whose hash is gone from Redis. A multi-key EXISTS counts the hashes of a chunk; only a
 * chunk that comes up short is checked key by key. Queued tries are many under load (thousands),
 * and a command per key cost the scheduler and Redis more than the check is worth.
 */
export async function jobsWithoutHash(queues: Pick<Queues, "connection" | "prefix">, jobs: TaskJob[]): Promise<TaskJob[]> {
  const key = (j: TaskJob) => `${queues.prefix}:${taskQueueName(j)}:${taskJobId(j)}`;
  const chunks: TaskJob[][] = [];
  for (let i = 0; i < jobs.length; i += EXISTS_CHUNK) chunks.push(jobs.slice(i, i + EXISTS_CHUNK));
  if (!chunks.length) return [];
  const counts = queues.connection.pipeline();
  for (const c of chunks) counts.exists(...c.map(key));
  const counted = (await counts.exec()) ?? [];
  const short = chunks.filter((c, i) => counted[i]?.[1] !== c.length);
  if (!short.length) return [];
  const each = queues.connection.pipeline();
  const suspects = short.flat();
  for (const j of suspects) each.exists(key(j));
  const found = (await each.exec()) ?? [];
  return suspects.filter((_, i) => found[i]?.[1] !== 1);
}
