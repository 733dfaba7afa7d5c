import request from "supertest";
import { createDb } from "@svc/db";
import { createRedis } from "@svc/queue";
import { freePort, waitFor } from "@svc/testing";
import { createAssistantApp } from "../src";
import { HealthSchema, StatusSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";

let s: Stack;
const SECRET = "sk-test-do-not-leak-4242";

beforeAll(async () => {
  s = await createStack("aimeta");
});
afterAll(async () => s?.close());

test("/health is 200 healthy with every component once scheduler, worker and orchestrator beat", async () => {
  const body = await waitFor(
    async () => {
      const res = await request(s.app).get("/health");
      return res.status === 200 && res.body.status === "healthy" ? res.body : undefined;
    },
    { timeoutMs: 15_000, what: "healthy" },
  );
  const h = HealthSchema.parse(body);
  expect(h.components.database.status).toBe("healthy");
  expect(h.components.redis.status).toBe("healthy");
  expect(h.components.scheduler.status).toBe("healthy");
  expect(h.components.workers.count).toBeGreaterThanOrEqual(1);
  expect(h.components.orchestrator.count).toBe(1);
  expect(h.components.model_provider).toEqual({ configured: false, mode: "offline", provider: null });
  expect(h.version).toMatch(/^\d+\.\d+\.\d+/);
});

test("/health is 503 unhealthy when the database is unreachable, and when Redis is", async () => {
  const closed = await freePort();
  const deadDb = createDb(`postgres://postgres@127.0.0.1:${closed}/nothing`, { max: 1 });
  try {
    const res = await request(createAssistantApp({ ...s.assistant, db: deadDb })).get("/health");
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("unhealthy");
    expect(res.body.components.database.status).toBe("unhealthy");
    expect(res.body.components.redis.status).toBe("healthy");
  } finally {
    await deadDb.destroy();
  }
  const deadRedis = createRedis(`redis://127.0.0.1:${closed}`);
  try {
    const res = await request(createAssistantApp({ ...s.assistant, redis: deadRedis })).get("/health");
    expect(res.status).toBe(503);
    expect(res.body.components.redis.status).toBe("unhealthy");
  } finally {
    deadRedis.disconnect();
  }
});

test("/orchestrator/status says which providers are configured, never the key", async () => {
  const plain = StatusSchema.parse((await request(s.app).get("/orchestrator/status")).body);
  expect(plain).toMatchObject({ model_providers: { openai_compatible: false, local_model: false }, model: null, router_mode: "offline", dags: 3 });

  const config = { ...s.config, model: { ...s.config.model, apiKey: SECRET } };
  const app = createAssistantApp({ ...s.assistant, config, router: { mode: "llm", model: config.model.name } });
  const res = await request(app).get("/orchestrator/status");
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ model_providers: { openai_compatible: true, local_model: false }, model: "gpt-4o-mini", router_mode: "llm" });
  expect(res.text).not.toContain(SECRET);
  expect((await request(app).get("/health")).text).not.toContain(SECRET);
});

test("/orchestrator/status counts flows by status", async () => {
  await request(s.app).post("/orchestrator/intent").send({ intent: "order me a pizza" });
  const res = await request(s.app).get("/orchestrator/status");
  expect(res.body.flows.by_status.rejected).toBeGreaterThanOrEqual(1);
  expect(res.body.flows.total).toBe(Object.values(res.body.flows.by_status as Record<string, number>).reduce((a, b) => a + b, 0));
});

test("chat answers extractively from the docs folder with sources when no model is configured", async () => {
  const res = await request(s.app).post("/chat").send({ message: "A DAG is missing in the workflow UI, what do I do?" });
  expect(res.status).toBe(200);
  expect(res.body.mode).toBe("extractive");
  expect(res.body.answer).toMatch(/list-import-errors|reserialize/);
  expect(res.body.answer).not.toMatch(/not initialized/i);
  expect(res.body.sources[0].path).toMatch(/^docs\/troubleshooting\.md/);
  expect(res.body.sources[0].score).toBeGreaterThan(0);

  const dag = await request(s.app)
    .post("/chat")
    .send({ message: "which parameters does vm_deployment take?", history: [{ role: "user", content: "hi" }] });
  expect(dag.body.sources.some((x: { path: string }) => x.path.startsWith("dags/vm_deployment"))).toBe(true);

  const bad = await request(s.app).post("/chat").send({ message: "" });
  expect(bad.status).toBe(400);
  expect(bad.body.field).toBe("message");
});

test("/openapi.json is generated from the request schemas and /docs renders its operations", async () => {
  const doc = (await request(s.app).get("/openapi.json")).body;
  expect(doc.openapi).toBe("3.0.3");
  for (const p of [
    "/health",
    "/orchestrator/intent",
    "/orchestrator/flows/{flow_id}",
    "/orchestrator/flows/{flow_id}/events",
    "/orchestrator/flows/{flow_id}/approve",
    "/orchestrator/observe",
    "/orchestrator/status",
    "/orchestrator/dags",
    "/chat",
  ]) {
    expect(doc.paths[p]).toBeDefined();
  }
  expect(doc.components.schemas.IntentRequest.properties.intent).toMatchObject({ type: "string", minLength: 1, maxLength: 2000 });
  expect(doc.components.schemas.IntentRequest.required).toEqual(["intent"]);
  expect(doc.paths["/orchestrator/observe"].post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "dag_id", in: "query", required: true })]));
  const page = await request(s.app).get("/docs");
  expect(page.headers["content-type"]).toMatch(/text\/html/);
  expect(page.text).toContain("/orchestrator/intent");
  expect(page.text).not.toMatch(/<script/);
});

test("/metrics exposes request counts by route and flow counts by status in Prometheus text format", async () => {
  await request(s.app).get("/health");
  const res = await request(s.app).get("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/text\/plain/);
  expect(res.text).toMatch(/^svc_assistant_http_requests_total\{method="GET",route="\/health",status="(200|503)"\} \d+$/m);
  expect(res.text).toMatch(/^svc_flows\{status="rejected"\} \d+$/m);
});

test("with credentials configured every endpoint but /health, /openapi.json and /docs needs basic auth or the bearer token", async () => {
  const config = { ...s.config, auth: { adminUser: "admin", adminPassword: "s3cret-pass", apiToken: "tok-123" } };
  const app = createAssistantApp({ ...s.assistant, config });
  const anon = await request(app).get("/orchestrator/status");
  expect(anon.status).toBe(401);
  expect(anon.headers["www-authenticate"]).toMatch(/Basic/);
  expect(anon.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect((await request(app).post("/orchestrator/intent").send({ intent: "run a health check" })).status).toBe(401);
  expect((await request(app).get("/orchestrator/status").auth("admin", "wrong")).status).toBe(401);
  expect((await request(app).get("/orchestrator/status").auth("admin", "s3cret-pass")).status).toBe(200);
  expect((await request(app).get("/orchestrator/status").set("Authorization", "Bearer tok-123")).status).toBe(200);
  expect((await request(app).get("/metrics")).status).toBe(401);
  for (const open of ["/health", "/openapi.json", "/docs"]) expect((await request(app).get(open)).status).not.toBe(401);
});
