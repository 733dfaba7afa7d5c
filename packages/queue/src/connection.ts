import { Queue, type QueueOptions } from "bullmq";
import IORedis, { type Redis, type RedisOptions } from "ioredis";
import { hostQueueName, QUEUE_NAMES, type TaskJob } from "./names";
import { ioredisArgs } from "./redis-url";

export interface RedisSettings {
  url: string;
  /** BullMQ key prefix; tests use their own so they never touch another's keys. */
  prefix: string;
}

/** `new IORedis` for a plain or a Sentinel URL (see redis-url.ts); READONLY after a failover reconnects. */
export function openRedis(url: string, opts: RedisOptions): Redis {
  const args = ioredisArgs(url, opts);
  return args.length === 1 ? new IORedis(args[0]) : new IORedis(args[0], args[1]);
}

/** An ioredis connection configured as BullMQ requires (workers block, so no per-request retry cap). */
export function createRedis(url: string): Redis {
  const r = openRedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
  // Connection errors are retried by ioredis; log them at the call site via health checks, never crash.
  r.on("error", () => undefined);
  return r;
}

/**
 * A producer connection that fails fast: with Redis unreachable a command errors at once (no
 * offline queue) or after `commandTimeoutMs`, so an API answers 503 instead of waiting forever.
 * Workers keep createRedis (BullMQ's blocking reads need the offline queue and no retry cap).
 */
export function createProducerRedis(url: string, commandTimeoutMs = 3000): Redis {
  const r = openRedis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: commandTimeoutMs, connectTimeout: commandTimeoutMs, enableReadyCheck: true });
  r.on("error", () => undefined);
  return r;
}

/**
 * PING that first waits up to `waitMs` for a connection still being made: a producer connection
 * has no offline queue, so a command sent in the moments after a service starts (or while it
 * reconnects) fails at once although Redis is up. A Redis that stays away still fails within
 * `waitMs` plus the command timeout.
 */
export async function pingRedis(r: Redis, waitMs = 2000): Promise<string> {
  if (r.status !== "ready" && r.status !== "end" && r.status !== "close") {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        r.off("ready", done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      r.once("ready", done);
    });
  }
  return r.ping();
}

export interface Queues {
  intents: Queue;
  scheduler: Queue;
  tasks: Queue;
  /** The queue of a task job: its host's (made on first use, kept) or `tasks`. */
  forTask(job: Pick<TaskJob, "host">): Queue;
  connection: Redis;
  prefix: string;
  close(): Promise<void>;
}

/** Producer-side handles for all queues, sharing one fail-fast connection. */
export function createQueues(settings: RedisSettings, connection: Redis = createProducerRedis(settings.url), commandTimeoutMs = 3000): Queues {
  const opts: QueueOptions = { connection, prefix: settings.prefix };
  const queues = {
    intents: new Queue(QUEUE_NAMES.intents, opts),
    scheduler: new Queue(QUEUE_NAMES.scheduler, opts),
    tasks: new Queue(QUEUE_NAMES.tasks, opts),
  };
  const prepare = (q: Queue) => {
    q.on("error", () => undefined);
    boundAdd(q, commandTimeoutMs);
    return q;
  };
  for (const q of Object.values(queues)) prepare(q);
  const hostQueues = new Map<string, Queue>();
  const forHost = (host: string) => {
    let q = hostQueues.get(host);
    if (!q) hostQueues.set(host, (q = prepare(new Queue(hostQueueName(host), opts))));
    return q;
  };
  return {
    ...queues,
    forTask: (job) => (job.host ? forHost(job.host) : queues.tasks),
    connection,
    prefix: settings.prefix,
    async close() {
      try {
        await Promise.all([...Object.values(queues), ...hostQueues.values()].map((q) => q.close()));
        await connection.quit().catch(() => undefined);
      } finally {
        // With Redis unreachable closing fails and ioredis would go on reconnecting for ever,
        // keeping the process alive: stop it for good.
        connection.disconnect(false);
      }
    },
  };
}

/**
 * BullMQ waits for the connection before a command, however long Redis is away: bound `add` and
 * `addBulk` so a producer gets an error (an API answers 503, a scheduler pass fails and the next
 * one retries) instead of waiting for ever. Job ids are deterministic where it matters, so an add
 * that still lands later is deduplicated by Redis.
 */
function boundAdd(q: Queue, ms: number): void {
  for (const name of ["add", "addBulk"] as const) {
    const target = q as unknown as Record<typeof name, (...a: unknown[]) => Promise<unknown>>;
    const original = target[name].bind(q);
    target[name] = (...a) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error("Command timed out: Redis did not answer"), { code: "ETIMEDOUT" })), ms);
      });
      return Promise.race([original(...a), timeout]).finally(() => clearTimeout(timer));
    };
  }
}
