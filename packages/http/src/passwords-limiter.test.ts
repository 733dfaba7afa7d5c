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
  l.fail("a");
  l.fail("a");
  expect(l.retryAfter("a")).toBe(0);
  l.fail("a");
  expect(l.retryAfter("a")).toBe(5);
  expect(l.retryAfter("b")).toBe(0);
  now = 5001;
  expect(l.retryAfter("a")).toBe(0);
});

test("failures older than the window do not count, and a success clears them", () => {
  let now = 0;
  const l = new LoginLimiter({ maxFailures: 2, windowMs: 1000, now: () => now });
  l.fail("a");
  now = 1500;
  l.fail("a");
  expect(l.retryAfter("a")).toBe(0);
  l.succeed("a");
  l.fail("a");
  expect(l.retryAfter("a")).toBe(0);
});

test("roles are ordered viewer < user < op < admin", () => {
  expect(roleAtLeast("op", "user")).toBe(true);
  expect(roleAtLeast("user", "op")).toBe(false);
  expect(roleAtLeast("admin", "op")).toBe(true);
  expect(roleAtLeast("viewer", "viewer")).toBe(true);
});
