/** What the check needs of the queue's Redis connection. */
export interface PingableRedis {
  ping(): Promise<string>;
  /** Whether the connection is up now (ioredis status "ready"); without it every check pings. */
  ready?(): boolean;
}

/**
 * The check before an intent is written: a Redis PING, skipped while one succeeded within `freshMs`
 * and the connection has stayed ready. A stopped Redis closes the connection (not ready any more),
 * so the next request pings and is refused; a Redis that hangs is caught by the enqueue timeout,
 * and the flow, already durable, is enqueued again by the orchestrator's sweep.
 */
export function createQueueCheck(redis: PingableRedis, freshMs = 1000, now: () => number = Date.now): () => Promise<void> {
  let okAt = -Infinity;
  return async () => {
    if (redis.ready?.() && now() - okAt < freshMs) return;
    await redis.ping();
    okAt = now();
  };
}
