import { createTestDb, type TestDb } from "@svc/testing";
import { createFlowStore } from "./flow-store";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb("flowstore");
});
afterAll(async () => {
  await tdb.drop();
});

const input = { intent: "create a vm called web01", requestedParams: { cpus: 2 }, autoApprove: false, autoExecute: true };
const auditOf = (target: string) => tdb.db.selectFrom("audit_event").select(["actor", "action", "target", "detail"]).where("target", "=", target).execute();

test("a flow created for a caller comes back as stored, with its flow.created audit event written by the same statement", async () => {
  const store = createFlowStore(tdb.db);
  const flow = await store.create(input, "alice");
  expect(flow).toMatchObject({ status: "pending", intent: input.intent, requested_params: { cpus: 2 }, params: { cpus: 2 }, auto_execute: true, phases_completed: [] });
  expect(await store.require(flow.flow_id)).toEqual(flow);
  expect(await auditOf(flow.flow_id)).toEqual([{ actor: "alice", action: "flow.created", target: flow.flow_id, detail: {} }]);
  // Each request its own flow and its own event.
  const other = await store.create(input, "bob");
  expect(other.flow_id).not.toBe(flow.flow_id);
  expect(await auditOf(other.flow_id)).toEqual([{ actor: "bob", action: "flow.created", target: other.flow_id, detail: {} }]);
});

test("a flow created without a caller writes no audit event", async () => {
  const flow = await createFlowStore(tdb.db).create(input);
  expect(await auditOf(flow.flow_id)).toEqual([]);
});

test("an update sets the given fields (jsonb as values, null as SQL null) and only when the status is one expected", async () => {
  const store = createFlowStore(tdb.db);
  const flow = await store.create(input);
  expect(await store.update(flow.flow_id, { status: "planning" }, ["needs_input", "approved"])).toBeUndefined();
  expect(await store.update(flow.flow_id, { status: "planning" }, [])).toBeUndefined();
  const planned = await store.update(flow.flow_id, { status: "planning", router: { mode: "offline" }, summary: null, warnings: ["w"], dag_id: undefined }, ["pending"]);
  expect(planned).toMatchObject({ status: "planning", router: { mode: "offline" }, summary: null, warnings: ["w"], dag_id: null, params: { cpus: 2 } });
  expect(planned!.updated_at.getTime()).toBeGreaterThanOrEqual(flow.updated_at.getTime());
  // Without a guard the update applies whatever the status.
  expect(await store.update(flow.flow_id, { approval: null, phases_completed: ["dag_discovery"] })).toMatchObject({ approval: null, phases_completed: ["dag_discovery"] });
  expect(await store.update("flow-ffffffffffff", { status: "planning" })).toBeUndefined();
});
