import type http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { actorOf, LoginLimiter, requireAuth, type AuthSettings } from "./index";
import { authenticate } from "./auth";
import { hashPassword } from "./passwords";
import { PasswordGate } from "./password-gate";

// The failed-login limiter under a spray: invented user names, the addresses of one IPv6 /64, and
// more password hash checks at once than the process should run.
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;

test("ten guesses from ten addresses of one IPv6 /64 lock out the whole /64 (and only it); an IPv4-mapped address counts as its IPv4 one", () => {
  const l = new LoginLimiter({ maxFailures: 10 });
  for (let i = 1; i <= 10; i++) l.fail({ client: `2001:db8:1:2::${i.toString(16)}` });
  expect(l.retryAfter({ client: "2001:db8:1:2:ffff:ffff:ffff:ffff" })).toBeGreaterThan(0);
  expect(l.retryAfter({ client: "2001:0db8:0001:0002:0000:0000:0000:00aa" })).toBeGreaterThan(0);
  expect(l.retryAfter({ client: "2001:db8:1:3::1" })).toBe(0);
  for (let i = 0; i < 10; i++) l.fail({ client: "::ffff:192.0.2.7" });
  expect(l.retryAfter({ client: "192.0.2.7" })).toBeGreaterThan(0);
  expect(l.retryAfter({ client: "192.0.2.8" })).toBe(0);
});

describe("a spray of invented user names", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    // Only the admin login is configured (as in the compose deployment): invented names cost no hash.
    const app = express();
    app.set("trust proxy", true); // X-Forwarded-For names the client: one test plays many clients
    app.use(requireAuth({ adminUser: "admin", adminPassword: "admin-pass" }));
    app.get("/whoami", (_req, res) => void res.json({ actor: actorOf(res) }));
    server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const get = async (client: string, authorization: string) =>
    (await fetch(`${base}/whoami`, { headers: { authorization, "x-forwarded-for": client } }).then(async (r) => ({ status: r.status, body: await r.text() }))).status;

  test("10,001 invented names from many clients do not push the admin account's count out: its tenth failure still locks it for every client", async () => {
    for (let i = 0; i < 9; i++) expect(await get(`198.51.100.${i + 1}`, basic("admin", `guess-${i}`))).toBe(401);
    // 10,001 invented names, 5 per client (under the client limit), 32 requests at a time.
    const names = Array.from({ length: 10_001 }, (_, i) => i);
    for (let at = 0; at < names.length; at += 32) {
      const statuses = await Promise.all(names.slice(at, at + 32).map((i) => get(`10.${(i / 5) >> 16}.${((i / 5) >> 8) & 255}.${(i / 5) & 255}`, basic(`nobody-${i}`, "x"))));
      expect(statuses.every((s) => s === 401)).toBe(true);
    }
    expect(await get("198.51.100.10", basic("admin", "guess-9"))).toBe(401);
    // The account is locked now: the right password from a fresh client is refused too.
    expect(await get("203.0.113.1", basic("admin", "admin-pass"))).toBe(429);
  }, 120_000);
});

test("more simultaneous password checks than the process runs and queues are refused at once, not queued without end", async () => {
  const a: AuthSettings = { users: [{ name: "viewer1", role: "viewer", passwordHash: await hashPassword("viewer-pass") }] };
  // 60 checks started in one tick (unknown names cost a hash too): none can finish before the last starts.
  const outcomes = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => authenticate(basic(`nobody-${i}`, "x"), a)));
  const refused = outcomes.filter((o) => o.status === "rejected");
  expect(refused.length).toBeGreaterThanOrEqual(40);
  expect(refused.every((o) => (o.reason as { code?: string }).code === "unavailable")).toBe(true);
  // The ones that ran answered as usual: nobody.
  expect(outcomes.filter((o) => o.status === "fulfilled").every((o) => o.value === null)).toBe(true);
});

test("over HTTP a full password gate answers 503 problem JSON with Retry-After, and that refusal is no failed login", async () => {
  const gate = new PasswordGate({ maxInFlight: 1, maxWaiting: 0 });
  const limiter = new LoginLimiter({ maxFailures: 1 });
  const app = express();
  app.use(requireAuth({ users: [{ name: "viewer1", role: "viewer", passwordHash: await hashPassword("viewer-pass") }] }, { passwordGate: gate, limiter }));
  app.get("/whoami", (_req, res) => void res.json({ actor: actorOf(res) }));
  let release!: () => void;
  const held = gate.run(() => new Promise<void>((r) => (release = r)));
  const busy = await request(app).get("/whoami").set("Authorization", basic("viewer1", "wrong"));
  expect(busy.status).toBe(503);
  expect(busy.headers["retry-after"]).toBe("1");
  expect(JSON.parse(busy.text)).toMatchObject({ status: 503, detail: expect.stringMatching(/password checks/) });
  release();
  await held;
  // maxFailures is 1: had the refused request counted, this one would be 429.
  const ok = await request(app).get("/whoami").set("Authorization", basic("viewer1", "viewer-pass"));
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual({ actor: "viewer1" });
});
