import request from "supertest";
import { waitFor } from "@svc/testing";
import { FlowSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";

// `Prefer: respond-async` (RFC 7240): the intent is answered once the flow and its job are written,
// 202 with the flow still pending, and the orchestrator plans it as usual; without the header the
// answer carries the plan, as before.
let s: Stack;

beforeAll(async () => {
  s = await createStack("aiasync");
});
afterAll(async () => s?.close());

const flowOf = async (statusEndpoint: string) => FlowSchema.parse((await request(s.app).get(statusEndpoint)).body);
const runsOf = async (dagId: string) => (await s.assistant.engine.listDagRuns({ dag_id: dagId })).dag_runs;

test("an intent sent with Prefer: respond-async is answered 202 pending with Preference-Applied and Location, then planned by the orchestrator", async () => {
  const res = await request(s.app).post("/orchestrator/intent").set("Prefer", "respond-async").send({ intent: "create a vm called web02" });
  expect(res.status).toBe(202);
  expect(res.headers["preference-applied"]).toBe("respond-async");
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "pending", dag_id: null, run_id: null, phases_completed: [] });
  expect(res.headers.location).toBe(flow.status_endpoint);

  const planned = await waitFor(async () => ((await flowOf(flow.status_endpoint)).status === "awaiting_approval" ? flowOf(flow.status_endpoint) : undefined), {
    timeoutMs: 20_000,
    intervalMs: 100,
    what: "the accepted flow planned",
  });
  expect(planned).toMatchObject({ dag_id: "vm_deployment", params: { action: "create", vm_name: "web02" }, phases_completed: ["dag_discovery", "dag_validation"] });
  expect(await runsOf("vm_deployment")).toHaveLength(0);
});

test("approving with Prefer: respond-async answers 202 approved at once; the run is created after the answer", async () => {
  const planned = await request(s.app).post("/orchestrator/intent").send({ intent: "run a health check", auto_execute: false });
  expect(planned.status).toBe(200);
  expect(planned.headers["preference-applied"]).toBeUndefined();
  expect(planned.body).toMatchObject({ status: "awaiting_approval", dag_id: "infrastructure_health_check" });

  const approved = await request(s.app).post(`${planned.body.status_endpoint}/approve`).set("Prefer", "respond-async").send({});
  expect(approved.status).toBe(202);
  expect(approved.headers["preference-applied"]).toBe("respond-async");
  expect(approved.body).toMatchObject({ status: "approved", run_id: null });
  const running = await waitFor(
    async () => {
      const f = await flowOf(planned.body.status_endpoint);
      return f.run_id ? f : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: "the approved flow's run" },
  );
  expect(["in_progress", "completed"]).toContain(running.status);
  expect((await runsOf("infrastructure_health_check")).map((r) => r.dag_run_id)).toContain(running.run_id);
});

test("an intent without the preference (or with another one) is answered with its plan, as before", async () => {
  const res = await request(s.app).post("/orchestrator/intent").set("Prefer", "return=minimal").send({ intent: "create a vm called web03" });
  expect(res.status).toBe(200);
  expect(res.headers["preference-applied"]).toBeUndefined();
  expect(res.headers.location).toBeUndefined();
  expect(res.body).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { vm_name: "web03" } });
});
