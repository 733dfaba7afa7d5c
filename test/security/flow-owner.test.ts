import request from "supertest";
import { hashPassword } from "../../packages/http/src";
import { ASSISTANT_ROUTE_ROLES } from "../../services/assistant-api/src";
import { createStack, type Stack } from "../../services/assistant-api/test/stack";
import { registeredRoutes } from "./routes";

// A flow belongs to whoever submitted its intent: only they, or an op and above, answer or cancel
// it, and an answer gives only the params the flow asked for.
let s: Stack;
const ACCOUNTS = [
  ["alice", "user"],
  ["bob", "user"],
  ["olga", "op"],
] as const;

beforeAll(async () => {
  const users = await Promise.all(ACCOUNTS.map(async ([name, role]) => ({ name, role, password_hash: await hashPassword(`${name}-pass`) })));
  s = await createStack("flowowner", { env: { SVC_ADMIN_USER: "admin", SVC_ADMIN_PASSWORD: "admin-pass", SVC_USERS: JSON.stringify(users) } });
}, 60_000);
afterAll(async () => s?.close());

type Who = (typeof ACCOUNTS)[number][0] | "admin";
const as = (who: Who) => `Basic ${Buffer.from(`${who}:${who}-pass`).toString("base64")}`;
const post = (who: Who, path: string, body: object = {}) => request(s.app).post(path).set("Authorization", as(who)).send(body);

/** A flow `who` submits that waits for the VM's name (needs_input). */
async function waitingFlow(who: Who, extra: object = {}): Promise<string> {
  const res = await post(who, "/orchestrator/intent", { intent: "decommission the vm", ...extra });
  expect(res.body).toMatchObject({ status: "needs_input", dag_id: "vm_deployment", missing_params: ["vm_name"] });
  return res.body.flow_id as string;
}

const snapshot = async (flowId: string) => {
  const f = await s.flow(flowId);
  return { status: f.status, requested_params: f.requested_params, params: f.params, missing_params: f.missing_params, approval: f.approval, updated_at: f.updated_at };
};

test("the flow records who submitted the intent", async () => {
  const id = await waitingFlow("alice");
  expect((await s.flow(id)).created_by).toBe("alice");
});

test("another user cannot answer or cancel someone's flow: 403 problem JSON, and the flow is unchanged", async () => {
  const id = await waitingFlow("alice");
  const before = await snapshot(id);
  const answer = await post("bob", `/orchestrator/flows/${id}/answer`, { params: { vm_name: "old-box" } });
  expect(answer.status).toBe(403);
  expect(answer.headers["content-type"]).toMatch(/application\/problem\+json/);
  expect(answer.body).toMatchObject({ status: 403, detail: expect.stringContaining("Only the caller who submitted") });
  const cancel = await post("bob", `/orchestrator/flows/${id}/cancel`, { reason: "mine now" });
  expect(cancel.status).toBe(403);
  expect(await snapshot(id)).toEqual(before);
}, 60_000);

test("a user who learns an admin's waiting auto_approve flow cannot answer it with force_foreign: 403, the flow is unchanged, no run", async () => {
  const id = await waitingFlow("admin", { auto_approve: true });
  const before = await snapshot(id);
  const res = await post("bob", `/orchestrator/flows/${id}/answer`, { params: { vm_name: "admins-box", force_foreign: true } });
  expect(res.status).toBe(403);
  expect(await snapshot(id)).toEqual(before);
  expect((await s.assistant.engine.listDagRuns({ dag_id: "vm_deployment" })).dag_runs.filter((r) => r.conf.vm_name === "admins-box")).toEqual([]);
}, 60_000);

test("the creator answers their own flow, and an op answers anyone's", async () => {
  const mine = await waitingFlow("alice");
  const byCreator = await post("alice", `/orchestrator/flows/${mine}/answer`, { params: { vm_name: "old-box" } });
  expect(byCreator.status).toBe(200);
  expect(byCreator.body).toMatchObject({ status: "awaiting_approval", params: { action: "delete", vm_name: "old-box" } });

  const theirs = await waitingFlow("bob");
  const byOp = await post("olga", `/orchestrator/flows/${theirs}/answer`, { answer: "old-box-2" });
  expect(byOp.status).toBe(200);
  expect(byOp.body).toMatchObject({ status: "awaiting_approval", params: { vm_name: "old-box-2" } });
}, 60_000);

test("the creator cancels their own flow, and an op cancels anyone's", async () => {
  const mine = await waitingFlow("alice");
  expect((await post("alice", `/orchestrator/flows/${mine}/cancel`)).body).toMatchObject({ status: "cancelled" });
  const theirs = await waitingFlow("bob");
  expect((await post("olga", `/orchestrator/flows/${theirs}/cancel`)).body).toMatchObject({ status: "cancelled" });
}, 60_000);

test.each<Who>(["admin", "olga"])(
  "an answer with a param the flow did not ask for (force_foreign on an admin's auto_approve delete) is refused as %s with 400 naming it, and the flow is unchanged",
  async (who) => {
    const id = await waitingFlow("admin", { auto_approve: true });
    const before = await snapshot(id);
    const res = await post(who, `/orchestrator/flows/${id}/answer`, { params: { vm_name: "someone-elses", force_foreign: true } });
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ field: "force_foreign", flow_id: id, detail: expect.stringContaining("force_foreign was not asked for: this flow asks only for vm_name") });
    expect(await snapshot(id)).toEqual(before);
    expect((await s.assistant.engine.listDagRuns({ dag_id: "vm_deployment" })).dag_runs.filter((r) => r.conf.vm_name === "someone-elses")).toEqual([]);
  },
  60_000,
);

test("the assistant API's role table declares every route it registers, and no other", () => {
  const registered = registeredRoutes(s.app).map((r) => `${r.method} ${r.path}`);
  expect([...registered].sort()).toEqual(Object.keys(ASSISTANT_ROUTE_ROLES).sort());
  expect(ASSISTANT_ROUTE_ROLES["POST /orchestrator/flows/:flow_id/answer"]).toBe("user");
  expect(ASSISTANT_ROUTE_ROLES["POST /orchestrator/flows/:flow_id/cancel"]).toBe("user");
});
