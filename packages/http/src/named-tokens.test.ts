import express from "express";
import request from "supertest";
import { actorOf, requireAuth, roleOf, type AuthSettings } from "./index";
import { authConfigured } from "./auth";

const AUTH: AuthSettings = {
  adminUser: "admin",
  adminPassword: "admin-pass",
  apiToken: "admin-token-123456",
  tokens: [{ name: "mcp-assistant", role: "user", token: "tool-token-123456" }],
};

function appWith(auth: AuthSettings) {
  const app = express();
  app.use(requireAuth(auth, { roles: (req) => (req.path === "/approve" ? "op" : "user") }));
  app.get(["/whoami", "/approve"], (_req, res) => void res.json({ actor: actorOf(res), role: roleOf(res) }));
  return app;
}

test("a named token authenticates as its own name with its own role, not as the API token's admin", async () => {
  const app = appWith(AUTH);
  expect((await request(app).get("/whoami").set("Authorization", "Bearer tool-token-123456").expect(200)).body).toEqual({ actor: "mcp-assistant", role: "user" });
  const refused = await request(app).get("/approve").set("Authorization", "Bearer tool-token-123456").expect(403);
  expect(refused.body.detail).toBe("This needs the role 'op' or above; 'mcp-assistant' has 'user'");
  expect((await request(app).get("/approve").set("Authorization", "Bearer admin-token-123456").expect(200)).body).toEqual({ actor: "token", role: "admin" });
  await request(app).get("/whoami").set("Authorization", "Bearer tool-token-12345").expect(401);
});

test("named tokens alone make an API that wants credentials, with a Bearer challenge", async () => {
  const only: AuthSettings = { tokens: [{ name: "mcp-assistant", role: "user", token: "tool-token-123456" }] };
  expect(authConfigured(only)).toBe(true);
  const res = await request(appWith(only)).get("/whoami").expect(401);
  expect(res.headers["www-authenticate"]).toBe('Bearer realm="svc"');
});
