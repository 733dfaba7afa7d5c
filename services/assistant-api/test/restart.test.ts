import request from "supertest";
import { waitFor } from "@svc/testing";
import { createStack, type Stack } from "./stack";

let s: Stack;

beforeAll(async () => {
  // A short wait, so a request without an orchestrator answers 202 quickly.
  s = await createStack("airestart", { intentWaitMs: 1500 });
});
afterAll(async () => s?.close());

test("a flow survives a restart of the assistant API and the orchestrator: new instances serve it, approve it and it runs", async () => {
  const created = await request(s.app).post("/orchestrator/intent").send({ intent: "create a vm called keep01" });
  expect(created.body.status).toBe("awaiting_approval");
  const { flow_id: flowId, status_endpoint: endpoint, execution_id: executionId } = created.body;

  await s.stopServices();
  s.startServices();

  const read = await request(s.app).get(endpoint);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ flow_id: flowId, execution_id: executionId, status: "awaiting_approval", params: { vm_name: "keep01", action: "create" } });

  const approved = await request(s.app).post(`${endpoint}/approve`).send({});
  expect(approved.body).toMatchObject({ status: "in_progress", run_id: `flow__${executionId}` });
  expect((await s.waitFlow(flowId, ["completed", "failed"])).status).toBe("completed");
});

test("an intent accepted while no orchestrator runs answers 202 pending, and runs once an orchestrator starts", async () => {
  await s.stopServices();
  s.startServices({ orchestrator: false });
  const res = await request(s.app).post("/orchestrator/intent").send({ intent: "run a health check", auto_approve: true });
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ status: "pending", phases_completed: [], status_endpoint: `/orchestrator/flows/${res.body.flow_id}` });

  await s.stopServices();
  s.startServices();
  const flow = await s.waitFlow(res.body.flow_id, ["in_progress", "completed"]);
  expect(flow.run_id).toBe(`flow__${flow.execution_id}`);
  const runs = await s.assistant.engine.listDagRuns({ dag_id: "infrastructure_health_check" });
  expect(runs.dag_runs.filter((r) => r.dag_run_id === flow.run_id)).toHaveLength(1);
  await waitFor(async () => (await request(s.app).get(res.body.status_endpoint)).body.status === "completed", { timeoutMs: 20_000, what: "flow completed" });
});
