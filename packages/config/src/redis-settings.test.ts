import { ConfigError, loadConfig } from "./config";

test("REDIS_URL takes the plain form and the Sentinel form as they are", () => {
  expect(loadConfig({ REDIS_URL: "redis://:pw@r:6379/1" }).redisUrl).toBe("redis://:pw@r:6379/1");
  expect(loadConfig({ REDIS_URL: "redis+sentinel://s1:26379,s2:26379/svcprimary" }).redisUrl).toBe("redis+sentinel://s1:26379,s2:26379/svcprimary");
});

test("SVC_REDIS_SENTINELS and SVC_REDIS_SENTINEL_NAME make a Sentinel URL that keeps REDIS_URL's password, database and TLS", () => {
  const c = loadConfig({
    REDIS_URL: "rediss://:pw@redis:6379/3",
    SVC_REDIS_SENTINELS: "s1:26379, s2:26379,s3:26379",
    SVC_REDIS_SENTINEL_NAME: "svcprimary",
    SVC_REDIS_SENTINEL_PASSWORD: "a&b",
  });
  expect(c.redisUrl).toBe("rediss+sentinel://:pw@s1:26379,s2:26379,s3:26379/svcprimary/3?sentinelPassword=a%26b");
});

test.each([
  [{ SVC_REDIS_SENTINELS: "s1:26379" }, /SVC_REDIS_SENTINEL_NAME: required/],
  [{ SVC_REDIS_SENTINEL_NAME: "m" }, /set only together with SVC_REDIS_SENTINELS/],
  [{ SVC_REDIS_SENTINELS: "s1", SVC_REDIS_SENTINEL_NAME: "m" }, /SVC_REDIS_SENTINELS: a comma-separated list of host:port/],
  [{ REDIS_URL: "redis+sentinel://s1:1/m", SVC_REDIS_SENTINELS: "s2:2", SVC_REDIS_SENTINEL_NAME: "m" }, /set one or the other/],
  [{ REDIS_URL: "http://r:6379" }, /REDIS_URL: a redis:\/\//],
  [{ REDIS_URL: "redis+sentinel://s1:26379" }, /REDIS_URL/],
  [{ SVC_REDIS_SENTINEL_PASSWORD: "x" }, /only when Redis is reached through Sentinel/],
])("contradicting or malformed Redis settings %j are refused at start-up", (env, msg) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(msg);
});
