import { createFlowRouter, processFlow, runIdForExecution, type FlowStore, type PipelineDeps } from "@svc/flows";
import { silentLogger } from "@svc/logger";
import { createStack, type Stack } from "../../assistant-api/test/stack";

// A new flow's first plan job carries the flow as the API inserted it: the orchestrator plans from
// that copy, and its first write both claims the flow (still pending) and records the plan. The
// copy never outweighs Postgres: a flow that moved on is left as it is.
let s: Stack;
let pipeline: PipelineDeps & { workflowUiUrl: string };

beforeAll(async () => {
  s = await createStack("orchcopy", { orchestrator: false });
  pipeline = {
    store: s.assistant.store,
    engine: s.assistant.engine,
    router: createFlowRouter(s.config.model, silentLogger()),
    logger: silentLogger(),
    workflowUiUrl: s.config.workflowUiUrl,
  };
});
afterAll(async () => s?.close());

/** The pipeline with its store's calls counted. */
function counted(): { deps: typeof pipeline; calls: Record<"get" | "require" | "update", number> } {
  const calls = { get: 0, require: 0, update: 0 };
  const st = pipeline.store;
  const store: FlowStore = {
    ...st,
    get: (id) => (calls.get++, st.get(id)),
    require: (id) => (calls.require++, st.require(id)),
    update: (id, patch, expect) => (calls.update++, st.update(id, patch, expect)),
  };
  return { deps: { ...pipeline, store }, calls };
}

const newFlow = (intent: string, autoApprove = false) => s.assistant.store.create({ intent, requestedParams: {}, autoApprove, autoExecute: true });

test("a flow planned from its job's copy is written once, with no read, and ends as a flow read from Postgres would", async () => {
  const created = await newFlow("create a vm called copy1");
  const { deps, calls } = counted();
  const r = await processFlow(deps, created.flow_id, created);
  expect(r.status).toBe("awaiting_approval");
  expect(calls).toEqual({ get: 0, require: 0, update: 1 });
  const row = await s.flow(created.flow_id);
  expect(row).toMatchObject({ status: "awaiting_approval", dag_id: "vm_deployment", params: { action: "create", vm_name: "copy1" } });
  expect(row.phases_completed).toEqual(["dag_discovery", "dag_validation"]);
  expect(r.flow).toMatchObject({ flow_id: created.flow_id, status: "awaiting_approval" });

  // The same intent planned the usual way (read first) gives the same plan.
  const other = await newFlow("create a vm called copy1");
  await processFlow(pipeline, other.flow_id);
  const usual = await s.flow(other.flow_id);
  for (const k of ["status", "dag_id", "params", "phases_completed", "warnings", "summary"] as const) expect(row[k]).toEqual(usual[k]);
  const reasons = (f: typeof row) => (f.approval as { reasons?: string[] } | null)?.reasons;
  expect(reasons(row)).toEqual(reasons(usual));
  expect(reasons(row)?.length).toBeGreaterThan(0);
});

test("a stale copy (the flow already planned) changes nothing: the guarded write fails and the flow is returned as Postgres has it", async () => {
  const created = await newFlow("create a vm called copy2");
  await processFlow(pipeline, created.flow_id);
  const planned = await s.flow(created.flow_id);
  const r = await processFlow(pipeline, created.flow_id, created);
  expect(r.status).toBe("awaiting_approval");
  expect((await s.flow(created.flow_id)).updated_at).toEqual(planned.updated_at);
});

test("two deliveries of the copy at once for an auto-approved flow create exactly one DAG run", async () => {
  const created = await newFlow("run a health check", true);
  const results = await Promise.all([processFlow(pipeline, created.flow_id, created), processFlow(pipeline, created.flow_id, created)]);
  expect(results.map((x) => x.status)).toEqual(["in_progress", "in_progress"]);
  const runs = (await s.assistant.engine.listDagRuns({ dag_id: "infrastructure_health_check" })).dag_runs.map((x) => x.dag_run_id);
  expect(runs.filter((x) => x === runIdForExecution(created.execution_id))).toHaveLength(1);
  expect((await s.flow(created.flow_id)).phases_completed).toEqual(["dag_discovery", "dag_validation", "dag_execution"]);
});

test("a copy is not used for a flow routed by a model: the flow is claimed (planning) before its routing, as before", async () => {
  const created = await newFlow("create a vm called copy3");
  const { deps, calls } = counted();
  const llm = { ...pipeline.router, mode: "llm" as const };
  expect((await processFlow({ ...deps, router: llm }, created.flow_id, created)).status).toBe("awaiting_approval");
  expect(calls.update).toBe(2);
});
