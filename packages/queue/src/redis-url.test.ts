import { ioredisArgs, isSentinelUrl, parseSentinelUrl, reconnectOnReplicaError, redactRedisUrl } from "./redis-url";

test("the Sentinel form names every sentinel, the master, the database and the credentials", () => {
  expect(parseSentinelUrl("redis+sentinel://:s%40cret@10.0.0.1:26379,sentinel-b:26380,[::1]:26381/svcprimary/2?sentinelPassword=sp")).toEqual({
    sentinels: [
      { host: "10.0.0.1", port: 26379 },
      { host: "sentinel-b", port: 26380 },
      { host: "::1", port: 26381 },
    ],
    name: "svcprimary",
    db: 2,
    password: "s@cret",
    sentinelPassword: "sp",
    tls: false,
  });
  expect(parseSentinelUrl("rediss+sentinel://app:pw@s1:26379/m")).toMatchObject({ username: "app", password: "pw", db: 0, tls: true });
});

test.each([
  ["redis+sentinel://s1:26379", /master/],
  ["redis+sentinel://s1/m", /host:port/],
  ["redis+sentinel://s1:99999/m", /host:port/],
  ["redis+sentinel://s1:26379/m/x", /number/],
  ["redis+sentinel://s1:26379/m?foo=1", /unknown parameter 'foo'/],
])("a malformed Sentinel URL %s is refused, not guessed at", (url, msg) => {
  expect(() => parseSentinelUrl(url)).toThrow(msg);
});

test("a refusal never repeats the password", () => {
  expect(() => parseSentinelUrl("redis+sentinel://:topsecret@s1/m")).toThrow(expect.objectContaining({ message: expect.not.stringContaining("topsecret") }));
});

test("a plain URL goes to ioredis unchanged; the Sentinel form becomes sentinels + name with the master role", () => {
  expect(isSentinelUrl("redis://127.0.0.1:6379")).toBe(false);
  const [url, plain] = ioredisArgs("redis://127.0.0.1:6379", { maxRetriesPerRequest: null }) as [string, object];
  expect(url).toBe("redis://127.0.0.1:6379");
  expect(plain).toMatchObject({ maxRetriesPerRequest: null, reconnectOnError: reconnectOnReplicaError });
  const [opts] = ioredisArgs("redis+sentinel://:pw@s1:26379,s2:26379/svcprimary/1", { maxRetriesPerRequest: null });
  expect(opts).toMatchObject({
    sentinels: [
      { host: "s1", port: 26379 },
      { host: "s2", port: 26379 },
    ],
    name: "svcprimary",
    role: "master",
    db: 1,
    password: "pw",
    maxRetriesPerRequest: null,
  });
});

test("READONLY and UNBLOCKED (a replica answering) reconnect and resend; other errors do not", () => {
  expect(reconnectOnReplicaError(new Error("READONLY You can't write against a read only replica."))).toBe(2);
  expect(reconnectOnReplicaError(new Error("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"))).toBe(2);
  expect(reconnectOnReplicaError(new Error("WRONGTYPE Operation against a key holding the wrong kind of value"))).toBe(false);
  expect(reconnectOnReplicaError(new Error("ERR value is not an integer"))).toBe(false);
});

test("a URL is logged without its password", () => {
  expect(redactRedisUrl("redis://:pw@h:6379")).toBe("redis://:***@h:6379");
  expect(redactRedisUrl("redis+sentinel://user:pw@s1:1,s2:2/m")).toBe("redis+sentinel://user:***@s1:1,s2:2/m");
  expect(redactRedisUrl("redis://h:6379")).toBe("redis://h:6379");
});
