import express from "express";
import request from "supertest";
import { actorOf, requireAuth, type AuthSettings } from "./index";
import { hashPassword } from "./passwords";

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
let auth: AuthSettings;

beforeAll(async () => {
  auth = { adminUser: "admin", adminPassword: "admin-pass", users: [{ name: "viewer1", role: "viewer", passwordHash: await hashPassword("viewer-pass") }] };
});

/** A tiny app behind requireAuth; X-Forwarded-For names the client, so one test can play many clients. */
function appWith(a: AuthSettings) {
  const app = express();
  app.set("trust proxy", true);
  app.use(requireAuth(a));
  app.get("/whoami", (_req, res) => void res.json({ actor: actorOf(res) }));
  return app;
}

test("a viewer's valid logins interleaved with 50 wrong passwords for admin end in 429 for admin, never in a fresh guess window", async () => {
  const app = appWith(auth);
  const adminStatuses: number[] = [];
  for (let i = 0; i < 50; i++) {
    adminStatuses.push(
      (
        await request(app)
          .get("/whoami")
          .set("Authorization", basic("admin", `guess-${i}`))
      ).status,
    );
    await request(app).get("/whoami").set("Authorization", basic("viewer1", "viewer-pass"));
  }
  expect(adminStatuses.slice(0, 10)).toEqual(Array(10).fill(401));
  expect(adminStatuses.slice(10)).toEqual(Array(40).fill(429));
  // Even the right admin password is refused while the lockout lasts: no guess is ever confirmed.
  const right = await request(app).get("/whoami").set("Authorization", basic("admin", "admin-pass"));
  expect(right.status).toBe(429);
  expect(right.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(right.text)).toMatchObject({ type: "https://svc.dev/docs/errors#rate_limited", title: "Too Many Requests", status: 429 });
  expect(Number(right.headers["retry-after"])).toBeGreaterThan(0);
}, 60_000);

test("wrong passwords for one account from many clients lock that account everywhere, and leave other accounts and clients alone", async () => {
  const app = appWith(auth);
  const from = (n: number) => `198.51.100.${n}`;
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++)
    statuses.push(
      (
        await request(app)
          .get("/whoami")
          .set("X-Forwarded-For", from(i + 1))
          .set("Authorization", basic("admin", `guess-${i}`))
      ).status,
    );
  expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
  expect((await request(app).get("/whoami").set("X-Forwarded-For", from(99)).set("Authorization", basic("admin", "admin-pass"))).status).toBe(429);
  const viewer = await request(app).get("/whoami").set("X-Forwarded-For", from(99)).set("Authorization", basic("viewer1", "viewer-pass"));
  expect(viewer.status).toBe(200);
  expect(viewer.body).toEqual({ actor: "viewer1" });
}, 60_000);

test("a client that keeps trying a locked account is locked out itself, for every account", async () => {
  const app = appWith(auth);
  for (let i = 0; i < 10; i++)
    await request(app)
      .get("/whoami")
      .set("X-Forwarded-For", `203.0.113.${i + 1}`)
      .set("Authorization", basic("admin", `guess-${i}`));
  for (let i = 0; i < 10; i++) expect((await request(app).get("/whoami").set("X-Forwarded-For", "203.0.113.200").set("Authorization", basic("admin", "x"))).status).toBe(429);
  expect((await request(app).get("/whoami").set("X-Forwarded-For", "203.0.113.200").set("Authorization", basic("viewer1", "viewer-pass"))).status).toBe(429);
  expect((await request(app).get("/whoami").set("X-Forwarded-For", "203.0.113.201").set("Authorization", basic("viewer1", "viewer-pass"))).status).toBe(200);
}, 60_000);
