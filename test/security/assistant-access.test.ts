import request from "supertest";
import { hashPassword } from "../../packages/http/src";
import { buildRoutingTools } from "../../packages/assistant/src/llm/tool-schema";
import { assistantRole } from "../../services/assistant-api/src/app";
import { createStack, type Stack } from "../../services/assistant-api/test/stack";
import { concrete, registeredRoutes, type RegisteredRoute, routesNotAnswering } from "./routes";
import { basicFor } from "./users";

let s: Stack;
beforeAll(async () => {
  const users = await Promise.all(["viewer", "user", "op"].map(async (role) => ({ name: `${role}1`, role, password_hash: await hashPassword(`${role}-pass`) })));
  s = await createStack("secassist", { env: { SVC_ADMIN_USER: "admin", SVC_ADMIN_PASSWORD: "admin-pass", SVC_USERS: JSON.stringify(users) } });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const PUBLIC = new Set(["GET /health", "GET /openapi.json", "GET /docs"]);
const call = (r: RegisteredRoute) => {
  const t = request(s.app)[r.method.toLowerCase() as "get" | "post"](concrete(r.path));
  return r.method === "GET" ? t : t.set("Content-Type", "application/json").send("{}");
};

test("every route the assistant API registers but the public ones answers 401 without credentials", async () => {
  const routes = registeredRoutes(s.app);
  expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(["POST /orchestrator/intent", "POST /orchestrator/flows/:flow_id/approve", "POST /chat"]));
  expect(await routesNotAnswering(routes, PUBLIC, 401, call)).toEqual([]);
});

test("every route answers 403 to a role below the one it needs", async () => {
  const wrong: string[] = [];
  for (const r of registeredRoutes(s.app)) {
    if (PUBLIC.has(`${r.method} ${r.path}`)) continue;
    const need = assistantRole({ method: r.method, path: concrete(r.path) } as never);
    const below = need === "op" ? "user" : need === "user" ? "viewer" : null;
    if (!below) continue;
    const res = await call(r).set("Authorization", basicFor(below));
    if (res.status !== 403) wrong.push(`${r.method} ${r.path} as ${below} → ${res.status}`);
  }
  expect(wrong).toEqual([]);
});

test("auto_approve from a user is not honoured: the VM workflow waits for approval, and a user cannot approve it", async () => {
  const res = await request(s.app).post("/orchestrator/intent").set("Authorization", basicFor("user")).send({ intent: "delete the vm called old-box", auto_approve: true });
  expect(res.body).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment" });
  expect((await request(s.app).post(`/orchestrator/flows/${res.body.flow_id}/approve`).set("Authorization", basicFor("user")).send({})).status).toBe(403);
  const byOp = await request(s.app).post("/orchestrator/intent").set("Authorization", basicFor("op")).send({ intent: "delete the vm called old-box-2", auto_approve: true });
  expect(byOp.body).toMatchObject({ status: "in_progress", dag_id: "vm_deployment" });
}, 60_000);

test.each(["playbooks_dir", "secrets_file"])(
  "an intent that sets the operator setting %s is refused with 400 naming it, and no run starts",
  async (field) => {
    const res = await request(s.app)
      .post("/orchestrator/intent")
      .set("Authorization", basicFor("user"))
      .send({ intent: "run a health check", params: { [field]: "/tmp/evil/playbooks" } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(field);
    expect((await s.flow(res.body.flow_id)).run_id).toBeNull();
  },
  60_000,
);

test("the model's tool schema never offers operator settings as arguments", () => {
  const tools = buildRoutingTools([
    {
      dag_id: "ca_deployment",
      description: "CA",
      tags: [],
      examples: [],
      required_params: [],
      params: { vm_name: { type: "string" }, playbooks_dir: { type: "string" }, secrets_file: { type: "string" }, pull_secret_path: { type: "string" } },
    },
  ]);
  expect(Object.keys((tools[0]!.function.parameters as { properties: object }).properties)).toEqual(["vm_name"]);
});

test("a cross-site form POST is refused with 403 before anything is created", async () => {
  const res = await request(s.app).post("/orchestrator/intent").set("Authorization", basicFor("admin")).type("form").send("intent=delete+the+vm+called+x");
  expect(res.status).toBe(403);
  expect(res.headers["x-frame-options"]).toBe("DENY");
});

test("the same Idempotency-Key on an intent gives the same flow, once; another key a new one", async () => {
  const send = (key: string) =>
    request(s.app).post("/orchestrator/intent").set("Authorization", basicFor("user")).set("Idempotency-Key", key).send({ intent: "run a health check", auto_execute: false });
  const first = await send("intent-key-1");
  expect(first.status).toBe(200);
  const again = await send("intent-key-1");
  expect(again.body.flow_id).toBe(first.body.flow_id);
  const other = await send("intent-key-2");
  expect(other.body.flow_id).not.toBe(first.body.flow_id);
  const flows = await s.tdb.db.selectFrom("flow").select("flow_id").where("flow_id", "in", [first.body.flow_id, other.body.flow_id]).execute();
  expect(flows).toHaveLength(2);
  expect((await request(s.app).post("/orchestrator/intent").set("Authorization", basicFor("user")).set("Idempotency-Key", "bad key").send({ intent: "x" })).status).toBe(400);
}, 60_000);
