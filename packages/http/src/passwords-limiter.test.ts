import { hashPassword, verifyPassword } from "./passwords";
import { LoginLimiter } from "./login-limiter";
import { roleAtLeast } from "./roles";

test("a scrypt hash verifies its password only, and never contains it", async () => {
  const h = await hashPassword("correct horse");
  expect(h).toMatch(/^scrypt\$16384\$8\$1\$/);
  expect(h).not.toContain("correct horse");
  expect(await verifyPassword("correct horse", h)).toBe(true);
  expect(await verifyPassword("correct hors", h)).toBe(false);
  expect(await verifyPassword("correct horse", "plain-text")).toBe(false);
  expect(await hashPassword("correct horse")).not.toBe(h);
});

test("the limiter locks a client out after max failures within the window, only that client, until the lockout ends", () => {
  let now = 0;
  const l = new LoginLimiter({ maxFailures: 3, windowMs: 1000, lockoutMs: 5000, now: () => now });
  l.fail({ client: "a" });
  l.fail({ client: "a" });
  expect(l.retryAfter({ client: "a" })).toBe(0);
  l.fail({ client: "a" });
  expect(l.retryAfter({ client: "a" })).toBe(5);
  expect(l.retryAfter({ client: "b" })).toBe(0);
  now = 5001;
  expect(l.retryAfter({ client: "a" })).toBe(0);
});

test("failures older than the window do not count", () => {
  let now = 0;
  const l = new LoginLimiter({ maxFailures: 2, windowMs: 1000, now: () => now });
  l.fail({ client: "a" });
  now = 1500;
  l.fail({ client: "a" });
  expect(l.retryAfter({ client: "a" })).toBe(0);
});

test("a success clears only its account's failures, never the client's: the client is still locked at the limit", () => {
  const l = new LoginLimiter({ maxFailures: 3 });
  l.fail({ client: "a", account: "admin" });
  l.fail({ client: "a", account: "admin" });
  l.succeed({ client: "a", account: "viewer1" });
  l.fail({ client: "a", account: "admin" });
  expect(l.retryAfter({ client: "a", account: "viewer1" })).toBeGreaterThan(0);
  // The account's own success does clear the account's count (from another client here).
  const m = new LoginLimiter({ maxFailures: 3 });
  m.fail({ client: "b", account: "op1" });
  m.fail({ client: "c", account: "op1" });
  m.succeed({ client: "d", account: "op1" });
  m.fail({ client: "e", account: "op1" });
  expect(m.retryAfter({ client: "f", account: "op1" })).toBe(0);
});

test("an account's failures from many clients lock that account for every client, and no other account", () => {
  const l = new LoginLimiter({ maxFailures: 3 });
  for (const client of ["a", "b", "c"]) l.fail({ client, account: "admin" });
  expect(l.retryAfter({ client: "z", account: "admin" })).toBeGreaterThan(0);
  expect(l.retryAfter({ client: "z", account: "viewer1" })).toBe(0);
  expect(l.retryAfter({ client: "z" })).toBe(0);
});

test("roles are ordered viewer < user < op < admin", () => {
  expect(roleAtLeast("op", "user")).toBe(true);
  expect(roleAtLeast("user", "op")).toBe(false);
  expect(roleAtLeast("admin", "op")).toBe(true);
  expect(roleAtLeast("viewer", "viewer")).toBe(true);
});
