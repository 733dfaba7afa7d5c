import { readFileSync } from "node:fs";
import path from "node:path";
import request from "supertest";
import { FlowSchema } from "../src/schemas";
import { createStack, type Stack } from "./stack";

// The sentences of a lab's members and users, through the assistant's HTTP API with the
// repository's own vm_deployment and identity_deployment: each plans the action it names and
// waits for approval; none makes a run before it.
const REPO_DAGS = path.resolve(__dirname, "../../../dags");
let s: Stack;

beforeAll(async () => {
  s = await createStack("labmembers", {
    extraDags: {
      "vm-deployment.yaml": readFileSync(path.join(REPO_DAGS, "vm_deployment.yaml"), "utf8"),
      "identity_deployment.yaml": readFileSync(path.join(REPO_DAGS, "identity_deployment.yaml"), "utf8"),
    },
  });
});
afterAll(async () => s?.close());

const runs = async (dag_id: string) => (await s.assistant.engine.listDagRuns({ dag_id })).dag_runs.length;

test.each([
  ["create a vm called web01 in the dev1 lab", "vm_deployment", { action: "create", vm_name: "web01", lab: "dev1" }],
  ["join web01 to the dev1 lab", "vm_deployment", { action: "join", vm_name: "web01", lab: "dev1" }],
  ["remove web01 from the dev1 lab", "vm_deployment", { action: "leave", vm_name: "web01", lab: "dev1" }],
  ["add user alice to the dev1 lab in group developers", "identity_deployment", { action: "add_user", username: "alice", lab: "dev1", groups: ["developers"] }],
  ["remove user alice from dev1", "identity_deployment", { action: "remove_user", username: "alice", lab: "dev1" }],
])("POST /orchestrator/intent '%s' plans %s with %j and waits for approval; no run before it", async (intent, dag, params) => {
  const before = await runs(dag);
  const res = await request(s.app).post("/orchestrator/intent").send({ intent });
  expect(res.status).toBe(200);
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "awaiting_approval", dag_id: dag, run_id: null, params });
  expect(flow.user_actions.map((a) => a.action)).toContain("approve");
  expect(await runs(dag)).toBe(before);
});

test("'remove web01 from the lab' names no lab: the flow asks which lab, keeps the VM, and makes no run", async () => {
  const before = await runs("vm_deployment");
  const res = await request(s.app).post("/orchestrator/intent").send({ intent: "remove web01 from the lab", auto_approve: true });
  const flow = FlowSchema.parse(res.body);
  expect(flow).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", params: { action: "leave", vm_name: "web01" }, missing_params: ["lab"] });
  expect(flow.params).not.toHaveProperty("lab");
  expect(await runs("vm_deployment")).toBe(before);
});
