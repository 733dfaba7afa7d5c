import express, { type Request } from "express";
import { createWebUiApp } from "../src/app";
import { assertRolesDeclared, registeredRoutes, ROUTE_ROLES, routeRole, webUiRole } from "../src/route-roles";

const app = () => createWebUiApp({ api: {} as never, auth: { apiToken: "t" } });

test("the web UI starts: every registered route has a declared role and every declared role a route", () => {
  const keys = registeredRoutes(app()).map((r) => `${r.method} ${r.path}`);
  expect(keys.sort()).toEqual(Object.keys(ROUTE_ROLES).sort());
});

test("a route without a declared role stops start-up with an error naming it (a POST ending in /list is not a read)", () => {
  const a = express();
  const v1 = express.Router();
  v1.post("/dags/:dag_id/secrets/list", (_req, res) => void res.end());
  v1.get("/dags", (_req, res) => void res.end());
  a.use("/api/v1", v1);
  expect(() => assertRolesDeclared(a, { "GET /api/v1/dags": "viewer" })).toThrow("routes without a declared role: POST /api/v1/dags/:dag_id/secrets/list");
});

test("a declared role with no route, or an unknown role, also stops start-up", () => {
  const a = express();
  a.get("/home", (_req, res) => void res.end());
  expect(() => assertRolesDeclared(a, { "GET /home": "viewer", "DELETE /gone": "op" })).toThrow("roles declared for no route: DELETE /gone");
  expect(() => assertRolesDeclared(a, { "GET /home": "superuser" as never })).toThrow("unknown roles: GET /home → superuser");
});

test("the policy answers the declared role and refuses to guess for a route it does not know", () => {
  const req = (method: string, baseUrl: string, path: string) => ({ method, baseUrl, route: { path }, path }) as unknown as Request;
  expect(webUiRole(req("POST", "/api/v1", "/dags/~/dagRuns/list"))).toBe("viewer");
  expect(webUiRole(req("POST", "/api/v1", "/dags/:dag_id/dagRuns/:dag_run_id/clear"))).toBe("op");
  expect(webUiRole(req("HEAD", "", "/home"))).toBe("viewer");
  expect(() => webUiRole(req("POST", "/api/v1", "/dags/:dag_id/export/list"))).toThrow(/no role declared for POST \/api\/v1\/dags\/:dag_id\/export\/list/);
  expect(routeRole("GET", "/api/v1/health")).toBe("public");
});
