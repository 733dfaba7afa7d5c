import { startRedisServer, createTestDb, waitFor, type OwnRedis, type TestDb } from "@svc/testing";
import { AUTH, startFaultStack, type FaultStack } from "./fault-stack";

const DAG_ID = "fault_redis";
const INTENT = "create a vm called faultredis01";

let tdb: TestDb;
let redis: OwnRedis;
let stack: FaultStack;
beforeAll(async () => {
  tdb = await createTestDb("faultredis");
  redis = await startRedisServer();
  stack = await startFaultStack({
    label: "faultredis",
    databaseUrl: tdb.url,
    redisUrl: redis.url,
    dags: { [DAG_ID]: `dag_id: ${DAG_ID}\ntasks:\n  - {task_id: a, operator: noop}\n` },
  });
  await stack.start("web-ui", "web-ui");
  await stack.start("assistant-api", "assistant-api");
  await stack.start("orchestrator", "orchestrator");
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
  await tdb?.drop();
});

/** POST with an Idempotency-Key; the status, Retry-After, body and how long the answer took. */
async function post(url: string, body: unknown, key: string) {
  const t0 = Date.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json", "Idempotency-Key": key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    type: res.headers.get("content-type"),
    body: JSON.parse(text || "{}"),
    seconds: (Date.now() - t0) / 1000,
  };
}

test("with Redis stopped, a trigger and an intent answer 503 with Retry-After within 5 s; once Redis is back the same Idempotency-Key makes exactly one run and one flow", async () => {
  const trigger = () => post(`${stack.webUiUrl}/api/v1/dags/${DAG_ID}/dagRuns`, { conf: {} }, "trigger-1");
  const intent = () => post(`${stack.assistantUrl}/orchestrator/intent`, { intent: INTENT, auto_execute: false }, "intent-1");

  await redis.stop();
  for (const answer of [await trigger(), await intent()]) {
    expect(answer).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
    expect(answer.type).toContain("application/problem+json");
    expect(answer.body).toMatchObject({ status: 503, title: "Service Unavailable", type: expect.any(String), detail: expect.any(String) });
    expect(answer.seconds).toBeLessThan(5);
  }
  // A client retrying during the outage is refused again, still without making anything twice.
  expect((await trigger()).status).toBe(503);
  expect((await intent()).status).toBe(503);

  redis = await startRedisServer({ port: redis.port });
  const run = await waitFor(async () => ((await trigger()).status === 200 ? await trigger() : undefined), { timeoutMs: 30_000, intervalMs: 500, what: "trigger accepted" });
  const flow = await waitFor(
    async () => {
      const a = await intent();
      return a.status === 200 || a.status === 202 ? a : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: "intent accepted" },
  );

  const runs = await stack.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", DAG_ID).execute();
  expect(runs.map((r) => r.run_id)).toEqual([run.body.dag_run_id]);
  const flows = await stack.db.selectFrom("flow").select("flow_id").where("intent", "=", INTENT).execute();
  expect(flows.map((f) => f.flow_id)).toEqual([flow.body.flow_id]);
}, 150_000);
