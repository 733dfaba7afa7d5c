import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { createEngineApi, syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, freePort, recordingNotifier, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../../services/web-ui/src/app";
import { routeRole } from "../../services/web-ui/src/route-roles";
import { API_ROUTES } from "../../services/web-ui/src/routes";
import { concrete, registeredRoutes, type RegisteredRoute, routesNotAnswering } from "./routes";
import { authWithRoles, basicFor } from "./users";

const SETTINGS = { domain: "lab.example.com", cluster_name: "ocp", admin_user: "admin", inventory_dir: "/var/lib/svc/inventory", playbooks_dir: "/opt/svc/playbooks" };
const HEALTH_DAG = readFileSync(path.join(__dirname, "..", "..", "dags", "infrastructure_health_check.yaml"), "utf8");

let tdb: TestDb;
let dagsDir: string;
let app: ReturnType<typeof createWebUiApp>;
let routes: RegisteredRoute[];

beforeAll(async () => {
  tdb = await createTestDb("secweb");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-secweb-"));
  writeFileSync(path.join(dagsDir, "infrastructure_health_check.yaml"), HEALTH_DAG);
  const catalog = defaultOperators();
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir, catalog, settings: SETTINGS });
  await syncDagFolder({ db: tdb.db, dagsDir, catalog, settings: SETTINGS });
  app = createWebUiApp({ api, auth: await authWithRoles() });
  routes = registeredRoutes(app);
});
afterAll(async () => {
  await tdb?.drop();
  rmSync(dagsDir, { recursive: true, force: true });
});

const PUBLIC = new Set([
  "GET /",
  "GET /api/v1/openapi.json",
  ...API_ROUTES.filter((r) => r.public).map((r) => `${r.method.toUpperCase()} /api/v1${r.path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1")}`),
]);
const call = (r: RegisteredRoute) => {
  const t = request(app)[r.method.toLowerCase() as "get" | "post" | "patch" | "delete"](concrete(r.path));
  return r.method === "GET" ? t : t.set("Content-Type", "application/json").send("{}");
};

test("the routers register the whole REST API and the UI (enumeration finds every operation)", () => {
  for (const r of API_ROUTES) expect(routes).toContainEqual({ method: r.method.toUpperCase(), path: `/api/v1${r.path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1")}` });
  expect(routes.some((r) => r.path === "/ui/ask" && r.method === "POST")).toBe(true);
});

test("every registered route but the public ones answers 401 without credentials", async () => {
  expect(await routesNotAnswering(routes, PUBLIC, 401, call)).toEqual([]);
}, 120_000);

test("every route answers 403 to a role below the one it needs, and lets that role through", async () => {
  const wrong: string[] = [];
  for (const r of routes) {
    if (PUBLIC.has(`${r.method} ${r.path}`) || r.path.endsWith("/events")) continue;
    const need = routeRole(r.method, r.path);
    if (need === undefined || need === "public") {
      wrong.push(`${r.method} ${r.path} declares ${need ?? "no role"} but asks for credentials`);
      continue;
    }
    const below = need === "op" ? "user" : need === "user" ? "viewer" : null;
    if (below) {
      const res = await call(r).set("Authorization", basicFor(below));
      if (res.status !== 403) wrong.push(`${r.method} ${r.path} as ${below} → ${res.status}`);
    }
    const ok = await call(r).set("Authorization", basicFor(need));
    if (ok.status === 401 || ok.status === 403) wrong.push(`${r.method} ${r.path} as ${need} → ${ok.status}`);
  }
  expect(wrong).toEqual([]);
}, 180_000);

test("the live streams (skipped above: they never end) let a viewer in, the role of the pages they feed", async () => {
  const port = await freePort();
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  const open = (p: string, auth: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.get(`http://127.0.0.1:${port}${p}`, { headers: { Authorization: auth } }, (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
    });
  try {
    const streams = routes.filter((r) => r.path.endsWith("/events")).map((r) => r.path);
    expect(streams.sort()).toEqual(["/dags/:dag_id/grid/events", "/home/events"]);
    for (const p of streams) {
      expect(routeRole("GET", p)).toBe("viewer");
      await expect(open(p.replace(":dag_id", "infrastructure_health_check"), basicFor("viewer"))).resolves.toBe(200);
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("pausing, deleting and clearing need op: a user gets 403", async () => {
  const user = basicFor("user");
  expect((await request(app).patch("/api/v1/dags/infrastructure_health_check").set("Authorization", user).send({ is_paused: true })).status).toBe(403);
  expect((await request(app).delete("/api/v1/dags/infrastructure_health_check/dagRuns/x").set("Authorization", user)).status).toBe(403);
  expect((await request(app).patch("/api/v1/dags/infrastructure_health_check").set("Authorization", basicFor("op")).send({ is_paused: false })).status).toBe(200);
});

test.each(["playbooks_dir", "secrets_file", "pull_secret_path"])("a run that sets the operator setting %s is refused with 400 naming it, and nothing runs", async (field) => {
  const res = await request(app)
    .post("/api/v1/dags/infrastructure_health_check/dagRuns")
    .set("Authorization", basicFor("user"))
    .send({ conf: { [field]: "/tmp/evil/playbooks" } });
  expect(res.status).toBe(400);
  expect(res.body.detail).toContain(field);
  const runs = await tdb.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "infrastructure_health_check").execute();
  expect(runs).toEqual([]);
});

test("a cross-site form POST with valid credentials is refused with 403 and starts no run", async () => {
  const form = await request(app).post("/api/v1/dags/infrastructure_health_check/dagRuns").set("Authorization", basicFor("admin")).type("form").send("conf=%7B%7D");
  expect(form.status).toBe(403);
  const foreign = await request(app)
    .post("/api/v1/dags/infrastructure_health_check/dagRuns")
    .set("Authorization", basicFor("admin"))
    .set("Origin", "https://evil.example")
    .send({});
  expect(foreign.status).toBe(403);
  expect(await tdb.db.selectFrom("dag_run").select("run_id").execute()).toEqual([]);
});

test("a same-origin JSON POST by a user starts a run", async () => {
  const res = await request(app)
    .post("/api/v1/dags/infrastructure_health_check/dagRuns")
    .set("Authorization", basicFor("user"))
    .set("Host", "svc.local:8888")
    .set("Origin", "http://svc.local:8888")
    .send({ conf: { checks: ["dns"] } });
  expect(res.status).toBe(200);
  await tdb.db.deleteFrom("task_instance").execute();
  await tdb.db.deleteFrom("dag_run").execute();
});

test("20 bad logins lock the client out with 429 and Retry-After, even for good credentials", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++)
    statuses.push(
      (
        await request(app)
          .get("/api/v1/dags")
          .set("Authorization", `Basic ${Buffer.from(`viewer1:guess-${i}`).toString("base64")}`)
      ).status,
    );
  expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  const good = await request(app).get("/api/v1/dags").set("Authorization", basicFor("admin"));
  expect(good.status).toBe(429);
  expect(Number(good.headers["retry-after"])).toBeGreaterThan(0);
}, 60_000);

test("answers carry security headers", async () => {
  const res = await request(app).get("/api/v1/openapi.json");
  expect(res.headers).toMatchObject({ "x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "no-referrer" });
  expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
});
