import type { Redis } from "ioredis";
import { createProducerRedis, pingRedis } from "./connection";
import { redactRedisUrl } from "./redis-url";

/**
 * Queued jobs live only in Redis until a worker takes them: a Redis that evicts keys under memory
 * pressure would drop them silently. Only `noeviction` (Redis then refuses writes when full, and
 * the producer answers 503) keeps them; every other maxmemory-policy is refused at start-up.
 */
export class RedisEvictsJobsError extends Error {
  readonly code = "redis_evicts_jobs";
  constructor(
    readonly policy: string,
    where: string,
  ) {
    super(`Redis at ${where} has maxmemory-policy ${policy}: it may evict queued jobs. Set maxmemory-policy noeviction (redis.conf, or CONFIG SET) and start again.`);
    this.name = "RedisEvictsJobsError";
  }
}

/** The server's maxmemory-policy, read from INFO (works where CONFIG is disabled, as on managed Redis). */
export async function redisEvictionPolicy(r: Redis): Promise<string> {
  const info = await r.info("memory");
  const m = /^maxmemory_policy:(\S+)/m.exec(info);
  if (!m) throw new Error("Redis INFO memory did not report maxmemory_policy");
  return m[1]!;
}

export type RedisPolicyCheck = { ok: true; policy: string } | { ok: false; unreachable: string };

/**
 * The start-up check of every service: throws RedisEvictsJobsError when Redis would evict jobs.
 * A Redis that cannot be reached within `waitMs` is not a refusal (the service starts, answers 503
 * on its health endpoint, and reconnects): the result says so for the caller to log.
 */
export async function checkRedisKeepsJobs(url: string, waitMs = 5000): Promise<RedisPolicyCheck> {
  const r = createProducerRedis(url, waitMs);
  try {
    try {
      await pingRedis(r, waitMs);
    } catch (e) {
      return { ok: false, unreachable: e instanceof Error ? e.message : String(e) };
    }
    const policy = await redisEvictionPolicy(r);
    if (policy !== "noeviction") throw new RedisEvictsJobsError(policy, redactRedisUrl(url));
    return { ok: true, policy };
  } finally {
    r.disconnect();
  }
}

/** Service start-up: throws (the service exits 1) on an evicting Redis; an unreachable one is logged. */
export async function refuseEvictingRedis(url: string, logger: { warn(o: object, msg: string): void }, waitMs = 5000): Promise<void> {
  const check = await checkRedisKeepsJobs(url, waitMs);
  if (!check.ok) logger.warn({ err: check.unreachable }, "Redis not reachable at start-up: its maxmemory-policy is checked on the next start; health answers 503 until it is back");
}
