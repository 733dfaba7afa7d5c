import { parsePgUrl, DatabaseUrlError, describeHosts } from "./multi-host";

test("libpq's multi-host URL: every host in order, the target, and a single-host URL per host for node-postgres without libpq-only parameters", () => {
  const p = parsePgUrl("postgres://svc:s%40cret@127.0.0.1:6001,127.0.0.1:6002/svc?target_session_attrs=read-write&sslmode=disable&connect_timeout=3");
  expect(p.hosts).toEqual([
    { host: "127.0.0.1", port: 6001 },
    { host: "127.0.0.1", port: 6002 },
  ]);
  expect(p.targetSessionAttrs).toBe("read-write");
  expect(p.connectTimeoutMs).toBe(3000);
  expect(p.multiHost).toBe(true);
  expect(p.urlFor(p.hosts[1]!)).toBe("postgres://svc:s%40cret@127.0.0.1:6002/svc?sslmode=disable");
  expect(describeHosts(p.hosts)).toBe("127.0.0.1:6001,127.0.0.1:6002");
});

test("hosts without a port get 5432, IPv6 hosts keep their brackets, and a plain URL needs no host choice", () => {
  const p = parsePgUrl("postgresql://db-a,[::1]:6000,db-c:7000/app");
  expect(p.hosts).toEqual([
    { host: "db-a", port: 5432 },
    { host: "::1", port: 6000 },
    { host: "db-c", port: 7000 },
  ]);
  expect(p.targetSessionAttrs).toBe("any");
  expect(p.urlFor(p.hosts[1]!)).toBe("postgresql://[::1]:6000/app");
  const single = parsePgUrl("postgres://postgres@127.0.0.1:5432/svc");
  expect(single.multiHost).toBe(false);
  expect(single.urlFor(single.hosts[0]!)).toBe("postgres://postgres@127.0.0.1:5432/svc");
  // One host with a target still needs the check (is it writable?).
  expect(parsePgUrl("postgres://h:1/d?target_session_attrs=read-write").multiHost).toBe(true);
});

test("libpq's connect_timeout: seconds, at least 2, and 0 for none", () => {
  expect(parsePgUrl("postgres://a,b/d?connect_timeout=1").connectTimeoutMs).toBe(2000);
  expect(parsePgUrl("postgres://a,b/d?connect_timeout=0").connectTimeoutMs).toBeUndefined();
  expect(parsePgUrl("postgres://a,b/d").connectTimeoutMs).toBeUndefined();
});

test.each([
  ["mysql://a,b/d", "must start with postgres://"],
  ["postgres://a,,b/d", "empty host"],
  ["postgres://a:1,b:x/d", "the port of host 'b' is not a port number: 'x'"],
  ["postgres://a:1,b:70000/d", "not a port number"],
  ["postgres://a,b/d?target_session_attrs=standby", "target_session_attrs=standby is not supported"],
  ["postgres://a,b/d?connect_timeout=soon", "connect_timeout must be a number of seconds"],
  ["postgres:///d?target_session_attrs=read-write", "needs at least one host"],
])("%s is refused with a clear error", (url, message) => {
  expect(() => parsePgUrl(url)).toThrow(DatabaseUrlError);
  expect(() => parsePgUrl(url)).toThrow(message);
});

test("an error never repeats the password", () => {
  try {
    parsePgUrl("postgres://svc:hunter2@a:1,b:nope/d");
    throw new Error("expected a DatabaseUrlError");
  } catch (e) {
    expect((e as Error).message).toMatch(/^DATABASE_URL: /);
    expect((e as Error).message).not.toContain("hunter2");
  }
});
