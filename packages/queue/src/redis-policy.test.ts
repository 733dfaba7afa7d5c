import { freePort, startRedisServer, type OwnRedis } from "@svc/testing";
import { createProducerRedis } from "./connection";
import { checkRedisKeepsJobs, RedisEvictsJobsError, refuseEvictingRedis } from "./redis-policy";

let redis: OwnRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

async function setPolicy(policy: string): Promise<void> {
  const r = createProducerRedis(redis.url);
  try {
    await r.ping().catch(() => new Promise((res) => r.once("ready", res)));
    await r.config("SET", "maxmemory-policy", policy);
  } finally {
    r.disconnect();
  }
}

test("a Redis with maxmemory-policy noeviction passes the start-up check", async () => {
  await setPolicy("noeviction");
  await expect(checkRedisKeepsJobs(redis.url)).resolves.toEqual({ ok: true, policy: "noeviction" });
});

test.each(["allkeys-lru", "volatile-ttl"])("a Redis that may evict keys (%s) is refused at start-up, naming the policy and the fix", async (policy) => {
  await setPolicy(policy);
  const err = await checkRedisKeepsJobs(redis.url).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RedisEvictsJobsError);
  expect((err as Error).message).toContain(policy);
  expect((err as Error).message).toContain("noeviction");
  await expect(refuseEvictingRedis(redis.url, { warn: () => undefined })).rejects.toThrow(RedisEvictsJobsError);
  await setPolicy("noeviction");
});

test("an unreachable Redis is not a refusal: the service starts and says so in its log", async () => {
  const warned: string[] = [];
  await refuseEvictingRedis(`redis://127.0.0.1:${await freePort()}`, { warn: (_o, msg) => warned.push(msg) }, 300);
  expect(warned).toEqual([expect.stringContaining("not reachable")]);
});
