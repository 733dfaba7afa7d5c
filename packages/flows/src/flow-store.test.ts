import { sql } from "kysely";
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

/** The transaction that wrote each flow's row (xmin): rows of one statement share it. */
const writtenBy = async (ids: string[]) =>
  (await tdb.db.executeQuery<{ flow_id: string; tx: string }>(sql`select flow_id, xmin::text as tx from flow where flow_id = any(${ids})`.compile(tdb.db))).rows;

test("flows created together go to Postgres in one statement (one commit), each with its own row, audit event and caller", async () => {
  const store = createFlowStore(tdb.db);
  const callers = ["ann", "ben", "cat", "dan", "eve"];
  const flows = await Promise.all(callers.map((c, i) => store.create({ ...input, intent: `create a vm called g${i}`, requestedParams: { i } }, c)));
  expect(flows.map((f) => f.intent)).toEqual(callers.map((_, i) => `create a vm called g${i}`));
  expect(flows.map((f) => f.requested_params)).toEqual(callers.map((_, i) => ({ i })));
  expect(new Set(flows.map((f) => f.flow_id)).size).toBe(5);
  const txs = await writtenBy(flows.map((f) => f.flow_id));
  expect(txs).toHaveLength(5);
  expect(new Set(txs.map((t) => t.tx)).size).toBe(1);
  for (const [i, f] of flows.entries()) {
    expect(await auditOf(f.flow_id)).toEqual([{ actor: callers[i], action: "flow.created", target: f.flow_id, detail: {} }]);
    expect(await store.require(f.flow_id)).toEqual(f);
  }
});

test("a flow Postgres cannot store fails alone: the others created with it are stored", async () => {
  const store = createFlowStore(tdb.db);
  // A NUL character cannot be stored in a text column: its statement fails.
  const texts = ["create a vm called ok1", "create a vm called \u0000bad", "create a vm called ok2"];
  const out = await Promise.allSettled(texts.map((t) => store.create({ ...input, intent: t }, "ann")));
  expect(out.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  for (const o of out) if (o.status === "fulfilled") expect(await store.require(o.value.flow_id)).toMatchObject({ intent: o.value.intent, status: "pending" });
  const bad = (await tdb.db.selectFrom("flow").select("flow_id").where("intent", "like", "%bad").execute()).length;
  expect(bad).toBe(0);
});
