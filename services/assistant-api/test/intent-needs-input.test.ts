import request from "supertest";
import { FlowSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";

let s: Stack;

beforeAll(async () => {
  s = await createStack("needsinput");
});
afterAll(async () => s?.close());

const post = (path: string, body?: object) =>
  request(s.app)
    .post(path)
    .send(body ?? {});
const vmRuns = async () => (await s.assistant.engine.listDagRuns({ dag_id: "vm_deployment" })).dag_runs;

test.each([
  ["create a vm called ../../etc/passwd", /not a path/, "../../etc/passwd"],
  ["create a vm called -oProxyCommand=x", /must not start with '-'/, "-oProxyCommand=x"],
  ['create a vm called "my web server"', /must not contain spaces/, "my web server"],
  [`create a vm called ${"a".repeat(70)}`, /at most 63 characters/, "a".repeat(70)],
])("'%s' ends as needs_input naming vm_name and the rule; the name is neither coerced nor replaced; no run", async (intent, rule, given) => {
  const before = (await vmRuns()).length;
  const res = await post("/orchestrator/intent", { intent, auto_approve: true });
  expect(res.status).toBe(200);
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "needs_input", route_status: "needs_input", dag_id: "vm_deployment", run_id: null, missing_params: ["vm_name"] });
  expect(flow.params.vm_name).toBeUndefined();
  expect(flow.input_requests[0]).toMatchObject({ field: "vm_name", given });
  expect(flow.input_requests[0]!.rule).toMatch(rule);
  expect(flow.question).toMatch(/What should the VM be called/);
  expect(flow.summary).toMatch(/vm_name/);
  expect(flow.user_actions.map((a) => a.action)).toContain("answer");
  expect(await vmRuns()).toHaveLength(before);
});

test.each(["create a vm called -oProxyCommand=touch /tmp/x", "create a vm called a\ntouch /tmp/x", "create a vm called web01\nrm -rf ~", "create a vm called $(id)"])(
  "%j is rejected with no DAG and no run: the gate reads the whole intent, newlines included",
  async (intent) => {
    const before = (await vmRuns()).length;
    const res = await post("/orchestrator/intent", { intent, auto_approve: true });
    const flow = FlowSchema.parse(res.body);
    expect(flow).toMatchObject({ status: "rejected", route_status: "rejected", dag_id: null, run_id: null });
    expect(await vmRuns()).toHaveLength(before);
  },
);

test("needs_input → answered → runs: an invalid answer is a 400 naming the field and the flow keeps waiting; a valid one creates the run", async () => {
  const res = await post("/orchestrator/intent", { intent: "create a vm called ../../etc/passwd", auto_approve: true });
  const flow = FlowSchema.parse(res.body);
  expect(flow.status).toBe("needs_input");

  const bad = await post(`${flow.status_endpoint}/answer`, { answer: "../etc" });
  expect(bad.status).toBe(400);
  expect(bad.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect(bad.body).toMatchObject({ field: "vm_name", flow_id: flow.flow_id });
  expect((await s.flow(flow.flow_id)).status).toBe("needs_input");

  const ok = await post(`${flow.status_endpoint}/answer`, { answer: "web07" });
  expect(ok.status).toBe(200);
  const answered = FlowSchema.parse(ok.body);
  expect(answered).toMatchObject({ status: "in_progress", dag_id: "vm_deployment", params: { action: "create", vm_name: "web07" }, question: null, input_requests: [] });
  expect(answered.run_id).toBe(`flow__${flow.execution_id}`);
  const run = (await vmRuns()).find((r) => r.dag_run_id === answered.run_id);
  expect(run?.conf).toMatchObject({ action: "create", vm_name: "web07" });

  const again = await post(`${flow.status_endpoint}/answer`, { answer: "web08" });
  expect(again.status).toBe(409);
});

test("a delete that names no VM asks which one; answering with params gets to approval with that name", async () => {
  const res = await post("/orchestrator/intent", { intent: "decommission the vm" });
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", params: { action: "delete" }, missing_params: ["vm_name"] });
  expect(flow.question).toMatch(/Which VM/);
  const ok = await post(`${flow.status_endpoint}/answer`, { params: { vm_name: "old-box" } });
  expect(ok.body).toMatchObject({ status: "awaiting_approval", params: { action: "delete", vm_name: "old-box" } });
});

test("an answer body must carry answer or params, and only a needs_input flow takes one", async () => {
  const empty = await post("/orchestrator/flows/flow-000000000000/answer", {});
  expect(empty.status).toBe(400);
  expect(empty.body.field).toBe("answer");
  const ready = await post("/orchestrator/intent", { intent: "run a health check", auto_execute: false });
  expect((await post(`${ready.body.status_endpoint}/answer`, { answer: "x" })).status).toBe(409);
});
