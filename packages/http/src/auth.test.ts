import express from "express";
import request from "supertest";
import { actorOf, requireAuth, safeEqual, type AuthSettings } from "./index";
import { isAuthorized } from "./auth";

const AUTH: AuthSettings = { adminUser: "admin", adminPassword: "s3cret-pass", apiToken: "tok-123456" };
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;

/** A tiny app behind requireAuth that answers with the recorded actor. */
function appWith(auth: AuthSettings) {
  const app = express();
  app.use(requireAuth(auth));
  app.get("/whoami", (_req, res) => void res.json({ actor: actorOf(res) }));
  return app;
}

describe("requireAuth", () => {
  const app = appWith(AUTH);

  test("HTTP basic with the admin credentials passes and records the user as actor", async () => {
    const res = await request(app).get("/whoami").set("Authorization", basic("admin", "s3cret-pass")).expect(200);
    expect(res.body).toEqual({ actor: "admin" });
  });

  test("the bearer token passes and records `token` as actor", async () => {
    const res = await request(app).get("/whoami").set("Authorization", "Bearer tok-123456").expect(200);
    expect(res.body).toEqual({ actor: "token" });
  });

  test("a wrong password, a wrong user or a wrong token is a 401 problem: Invalid credentials", async () => {
    for (const header of [basic("admin", "wrong"), basic("root", "s3cret-pass"), "Bearer nope"]) {
      const res = await request(app).get("/whoami").set("Authorization", header);
      expect(res.status).toBe(401);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(res.text)).toMatchObject({ status: 401, title: "Unauthorized", detail: "Invalid credentials" });
    }
  });

  test("an unknown scheme is refused, even carrying the right token", async () => {
    const res = await request(app).get("/whoami").set("Authorization", "Token tok-123456");
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).detail).toBe("Invalid credentials");
  });

  test("a missing header is a 401 problem with a WWW-Authenticate challenge per configured scheme", async () => {
    const res = await request(app).get("/whoami");
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe('Basic realm="svc", Bearer realm="svc"');
    expect(JSON.parse(res.text)).toMatchObject({ status: 401, detail: expect.stringMatching(/^Authentication required/) });
    const tokenOnly = await request(appWith({ apiToken: "t" })).get("/whoami");
    expect(tokenOnly.headers["www-authenticate"]).toBe('Bearer realm="svc"');
  });

  test("with nothing configured the API is open and the actor is anonymous", async () => {
    const open = appWith({});
    expect((await request(open).get("/whoami").expect(200)).body).toEqual({ actor: "anonymous" });
    // A user without a password configures nothing either.
    expect(
      (
        await request(appWith({ adminUser: "admin" }))
          .get("/whoami")
          .expect(200)
      ).body,
    ).toEqual({ actor: "anonymous" });
  });
});

describe("credential checks", () => {
  test("safeEqual compares whole strings, whatever their lengths", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
  });

  test("isAuthorized parses both schemes and rejects malformed values", () => {
    expect(isAuthorized(basic("admin", "s3cret-pass"), AUTH)).toBe(true);
    expect(isAuthorized(basic("admin", "s3cret-pass"), { apiToken: "t" })).toBe(false);
    expect(isAuthorized("bearer tok-123456", AUTH)).toBe(true);
    expect(isAuthorized("Bearer tok-123456", { adminUser: "admin", adminPassword: "p" })).toBe(false);
    expect(isAuthorized("Basic !!!", AUTH)).toBe(false);
    expect(isAuthorized("Basic", AUTH)).toBe(false);
    expect(isAuthorized(undefined, AUTH)).toBe(false);
  });
});
