import { QueueEvents } from "bullmq";
import type { Redis } from "ioredis";

/** The outcome of a job someone waits for: its return value, or undefined when it failed or the wait ran out. */
export interface JobWaiters {
  /**
   * Start waiting for `jobId` before its job is added (so no event can pass unseen). `result(ms)`
   * settles with the job's return value, or undefined on failure or after `ms`; `cancel()` drops
   * the wait (its job was not added, or nobody waits).
   */
  expect(jobId: string): { result(ms: number): Promise<unknown>; cancel(): void };
  /** The queue's event reader, once it reads, for BullMQ's own waits (jobs that may have finished before). */
  events(): Promise<QueueEvents>;
  close(): Promise<void>;
}

/** The id of the newest entry of a stream, or 0 when it has none (every later entry is read). */
async function newestId(redis: Redis, key: string): Promise<string> {
  const newest = await redis.xrevrange(key, "+", "-", "COUNT", 1);
  return newest[0]?.[0] ?? "0";
}

/**
 * One reader of a queue's event stream for every waiting request, from the stream's newest entry
 * when the process started (read before the reader's first XREAD, so a job added and finished in
 * between is still seen), resolving waits by job id: no per-job check and no per-job listeners.
 */
export function createJobWaiters(o: { queueName: string; prefix: string; connection: Redis; onError: (e: unknown) => void }): JobWaiters {
  const waiting = new Map<string, (value: unknown) => void>();
  const settle = (jobId: string, value: unknown) => waiting.get(jobId)?.(value);
  let closed = false;
  let reading: QueueEvents | undefined;
  const started = newestId(o.connection, `${o.prefix}:${o.queueName}:events`).then((lastEventId) => {
    const events = new QueueEvents(o.queueName, { connection: o.connection, prefix: o.prefix, lastEventId, autorun: !closed });
    events.on("error", o.onError);
    events.on("completed", ({ jobId, returnvalue }) => settle(jobId, returnvalue));
    events.on("failed", ({ jobId }) => settle(jobId, undefined));
    return (reading = events);
  });
  started.catch(o.onError);

  return {
    events: () => started,
    expect(jobId) {
      let settled!: (value: unknown) => void;
      const outcome = new Promise<unknown>((resolve) => (settled = resolve));
      waiting.set(jobId, settled);
      const cancel = () => {
        if (waiting.get(jobId) === settled) waiting.delete(jobId);
      };
      return {
        cancel,
        async result(ms) {
          let timer: NodeJS.Timeout | undefined;
          const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
          try {
            return await Promise.race([outcome, timedOut]);
          } finally {
            clearTimeout(timer);
            cancel();
          }
        },
      };
    },
    async close() {
      // Not started yet (Redis unreachable since boot): nothing reads; the caller's disconnect ends the wait.
      closed = true;
      await reading?.close().catch(() => undefined);
    },
  };
}
