import request from "supertest";
import { createStack, type Stack } from "../../assistant-api/test/stack";
import { startModelStub, type ModelStub } from "./model-stub";

const KEY = "sk-stub-key-never-shown";
let stub: ModelStub;
let s: Stack;

beforeAll(async () => {
  stub = await startModelStub();
  s = await createStack("orchllm", { env: { MODEL_PROVIDER_API_KEY: KEY, SVC_MODEL_BASE_URL: stub.baseUrl, SVC_MODEL_NAME: "stub-model", SVC_MODEL_TIMEOUT_MS: "400" } });
});
afterAll(async () => {
  await s?.close();
  await stub?.close();
});

const intent = (text: string) => request(s.app).post("/orchestrator/intent").send({ intent: text });

// The offline router is unsure of these (no clear winner): only such requests are sent to the model.
const UNSURE = (name: string) => `${name} please, rhel9, 4 cpus`;

test("with a model configured the orchestrator routes what the offline router is unsure of through it over HTTP, and the flow records mode llm", async () => {
  stub.mode = { kind: "tool", name: "vm_deployment", args: { vm_name: "db-1", action: "create" } };
  const before = stub.calls.length;
  const res = await intent(UNSURE("db-1"));
  expect(res.body).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { vm_name: "db-1", image: "rhel9" } });
  expect(res.body.router).toMatchObject({ mode: "llm", configured_mode: "llm", model: "stub-model", fallback_reason: null });
  expect(res.body.router.reason).toMatch(/model chose vm_deployment/);

  expect(stub.calls.length).toBe(before + 1);
  const call = stub.calls[stub.calls.length - 1]!;
  expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(call.body.model).toBe("stub-model");
  const tools = (call.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
  expect(tools).toContain("vm_deployment");
  expect(JSON.stringify(res.body)).not.toContain(KEY);
});

test("a request the offline router is sure of is planned without a call to the model", async () => {
  stub.mode = { kind: "tool", name: "infrastructure_health_check", args: {} };
  const before = stub.calls.length;
  const res = await intent("please spin up a virtual machine named db-4");
  expect(res.body).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { vm_name: "db-4", action: "create" } });
  expect(res.body.router).toMatchObject({ mode: "offline", configured_mode: "llm", fallback_reason: null });
  expect(stub.calls.length).toBe(before);
});

test("a malformed model response falls back to offline routing, and the flow says so (an unsure request is refused)", async () => {
  stub.mode = { kind: "malformed" };
  const res = await intent(UNSURE("db-2"));
  expect(res.body).toMatchObject({ status: "rejected", dag_id: null, run_id: null });
  expect(res.body.router).toMatchObject({ mode: "offline", configured_mode: "llm" });
  expect(res.body.router.fallback_reason).toMatch(/not valid JSON|no tool call/);
  expect(res.body.next_steps.join(" ")).toMatch(/routed offline/);
});

test("a model that does not answer within the timeout falls back to offline routing", async () => {
  stub.mode = { kind: "hang" };
  const res = await intent(UNSURE("db-3"));
  expect(res.body).toMatchObject({ status: "rejected", dag_id: null, run_id: null });
  expect(res.body.router).toMatchObject({ mode: "offline", configured_mode: "llm", fallback_reason: "timed out" });
  expect(res.body.next_steps.join(" ")).toMatch(/not used \(timed out\)/);
});

test("a refused request never reaches the model", async () => {
  stub.mode = { kind: "tool", name: "vm_deployment", args: {} };
  const before = stub.calls.length;
  const res = await intent("create a vm called x1 && cat /etc/shadow");
  expect(res.body).toMatchObject({ status: "rejected", dag_id: null });
  expect(res.body.router.fallback_reason).toBeNull();
  expect(stub.calls.length).toBe(before);
});

test("with a model the same name rules hold: a name the model reads out of a path is not used, the flow needs input and no run exists", async () => {
  stub.mode = { kind: "tool", name: "vm_deployment", args: { vm_name: "etc", action: "create" } };
  const before = stub.calls.length;
  const res = await intent("thing for ../../etc/passwd please, rhel9, 4 cpus");
  expect(stub.calls.length).toBe(before + 1);
  expect(res.body).toMatchObject({ status: "needs_input", route_status: "needs_input", dag_id: "vm_deployment", run_id: null, missing_params: ["vm_name"] });
  expect(res.body.router).toMatchObject({ mode: "llm", status: "needs_input" });
  expect(res.body.params.vm_name).toBeUndefined();
  expect((await s.assistant.engine.listDagRuns({ dag_id: "vm_deployment" })).total_entries).toBe(0);
});

test("a name the user gave that breaks the rule is asked again before any model is consulted", async () => {
  stub.mode = { kind: "tool", name: "vm_deployment", args: { vm_name: "etc", action: "create" } };
  const before = stub.calls.length;
  const res = await intent("create a vm called ../../etc/passwd");
  expect(stub.calls.length).toBe(before);
  expect(res.body).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", run_id: null, missing_params: ["vm_name"] });
  expect(res.body.input_requests[0]).toMatchObject({ field: "vm_name", given: "../../etc/passwd" });
});

test("a model that names a DAG outside the candidates or invents values never acts: the flow is refused or planned with what the user said only", async () => {
  stub.mode = { kind: "tool", name: "wipe_all_vms", args: { confirm: true } };
  const unknown = await intent(UNSURE("db-5"));
  expect(unknown.body).toMatchObject({ status: "rejected", dag_id: null, run_id: null });
  expect(unknown.body.router.fallback_reason).toMatch(/wipe_all_vms, which is not a candidate/);

  stub.mode = { kind: "tool", name: "vm_deployment", args: { vm_name: "db-6", image: "fedora40", action: "delete" } };
  const invented = await intent(UNSURE("db-6"));
  // The image and the delete are the model's: the request says rhel9 and asks for no delete, so the default (create) stands.
  expect(invented.body).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { vm_name: "db-6", image: "rhel9", action: "create" } });
  expect(invented.body.router.warnings.join(" ")).toMatch(/action dropped: the request does not state "delete"/);
  expect((await s.assistant.engine.listDagRuns({ dag_id: "vm_deployment" })).total_entries).toBe(0);
});
