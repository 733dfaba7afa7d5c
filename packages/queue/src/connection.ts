import { Queue, type ConnectionOptions, type QueueOptions } from "bullmq";
import IORedis, { type Redis } from "ioredis";
import { QUEUE_NAMES } from "./names";

export interface RedisSettings {
  url: string;
  /** BullMQ key prefix; tests use their own so they never touch another's keys. */
  prefix: string;
}

/** An ioredis connection configured as BullMQ requires (workers block, so no per-request retry cap). */
export function createRedis(url: string): Redis {
  const r = new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  // Connection errors are retried by ioredis; log them at the call site via health checks, never crash.
  r.on("error", () => undefined);
  return r;
}

export interface Queues {
  intents: Queue;
  scheduler: Queue;
  tasks: Queue;
  connection: Redis;
  prefix: string;
  close(): Promise<void>;
}

/** Producer-side handles for all queues, sharing one connection. */
export function createQueues(settings: RedisSettings, connection: Redis = createRedis(settings.url)): Queues {
  const opts: QueueOptions = { connection: connection as ConnectionOptions, prefix: settings.prefix };
  const queues = {
    intents: new Queue(QUEUE_NAMES.intents, opts),
    scheduler: new Queue(QUEUE_NAMES.scheduler, opts),
    tasks: new Queue(QUEUE_NAMES.tasks, opts),
  };
  for (const q of Object.values(queues)) q.on("error", () => undefined);
  return {
    ...queues,
    connection,
    prefix: settings.prefix,
    async close() {
      await Promise.all(Object.values(queues).map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    },
  };
}
