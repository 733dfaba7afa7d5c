import { readFileSync } from "node:fs";
import path from "node:path";
import { createFlowRouter, processFlow, runIdForExecution, type PipelineDeps } from "@svc/flows";
import { silentLogger } from "@svc/logger";
import { createStack, type Stack } from "../../assistant-api/test/stack";

// The repository's lab_deployment beside the test catalogue: the offline router picks it for a
// sentence about a whole lab, and its run (which triggers the products' runs) waits for an op.
const LAB = readFileSync(path.resolve(__dirname, "../../../dags/lab_deployment.yaml"), "utf8");

let s: Stack;
let pipeline: PipelineDeps & { workflowUiUrl: string };
beforeAll(async () => {
  s = await createStack("orchlab", { orchestrator: false, extraDags: { "lab_deployment.yaml": LAB } });
  const a = s.assistant;
  pipeline = { store: a.store, engine: a.engine, router: createFlowRouter(s.config.model, silentLogger()), logger: silentLogger(), workflowUiUrl: s.config.workflowUiUrl };
  await a.engine.setPaused("lab_deployment", false);
});
afterAll(async () => s?.close());

test("'stand up a lab for lab.example.com with DNS, a CA and a registry' plans lab_deployment with those values and waits for an op's approval, starting nothing", async () => {
  const flow = await s.assistant.store.create({
    intent: "stand up a lab for lab.example.com with DNS, a CA and a registry",
    requestedParams: {},
    autoApprove: false,
    autoExecute: true,
  });
  expect((await processFlow(pipeline, flow.flow_id)).status).toBe("awaiting_approval");
  const row = await s.flow(flow.flow_id);
  expect(row.dag_id).toBe("lab_deployment");
  expect(row.params).toMatchObject({ domain: "lab.example.com", products: ["router", "identity", "ca", "registry"] });
  expect(row.approval).toMatchObject({ required: true, required_role: "op" });
  expect(JSON.stringify(row.approval)).toMatch(/tagged vm/);
  expect((await s.assistant.engine.listDagRuns({ dag_id: "lab_deployment" })).dag_runs.map((r) => r.dag_run_id)).not.toContain(runIdForExecution(flow.execution_id));
});
