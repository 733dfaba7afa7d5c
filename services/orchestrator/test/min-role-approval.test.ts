import { approveFlow, processFlow, runIdForExecution, type PipelineDeps } from "@svc/flows";
import { createStack, type Stack } from "../../assistant-api/test/stack";
import { pick, pipelineOf } from "./pick-router";

/**
 * A param reserved for admin (min_role: admin) is covered only by an admin's approval, given by
 * hand or in advance with auto_approve; the run is checked again when it is created.
 */
let s: Stack;
let pipeline: PipelineDeps & { workflowUiUrl: string };
const VAULT =
  "dag_id: vault_job\ndescription: Rotate the vault widgets.\nparams:\n  purge: { type: boolean, default: false, min_role: admin }\ntasks:\n  - {task_id: a, operator: noop}\n";
const PAUSED = "dag_id: paused_job\ndescription: Polish the paused widgets.\ntasks:\n  - {task_id: a, operator: noop}\n";

beforeAll(async () => {
  s = await createStack("orchminrole", { orchestrator: false, extraDags: { "vault.yaml": VAULT, "paused.yaml": PAUSED } });
  pipeline = pipelineOf(s);
  const a = s.assistant;
  await a.engine.setPaused("vault_job", false);
  await a.engine.setPaused("paused_job", true);
});
afterAll(async () => s?.close());

const purgeFlow = (autoApproveRole?: "op" | "admin") =>
  s.assistant.store.create({ intent: "purge the vault widgets", requestedParams: { purge: true }, autoApprove: autoApproveRole !== undefined, autoApproveRole, autoExecute: true });
const runsOf = async (dagId: string) => (await s.assistant.engine.listDagRuns({ dag_id: dagId })).dag_runs.map((r) => r.dag_run_id);

test("an op's auto_approve does not cover a param reserved for admin: the flow waits for an admin, saying so", async () => {
  const flow = await purgeFlow("op");
  expect((await processFlow({ ...pipeline, router: pick("vault_job") }, flow.flow_id)).status).toBe("awaiting_approval");
  const row = await s.flow(flow.flow_id);
  expect(row.approval).toMatchObject({ required: true, required_role: "admin", reasons: ["params.purge may only be set by the role 'admin' or above"] });
  expect(row.warnings.join(" ")).toMatch(/auto_approve does not cover this flow: approving it needs the role 'admin', the caller has 'op'/);
  expect(row.run_id).toBeNull();
  expect(await runsOf("vault_job")).not.toContain(runIdForExecution(flow.execution_id));
});

test("an op's approval of that flow is refused with 403 and leaves it waiting; an admin's approval runs it", async () => {
  const flow = await purgeFlow();
  await processFlow({ ...pipeline, router: pick("vault_job") }, flow.flow_id);
  await expect(approveFlow(s.assistant.store, flow.flow_id, "op1", "op")).rejects.toMatchObject({ code: "forbidden", details: { required_role: "admin" } });
  expect((await s.flow(flow.flow_id)).status).toBe("awaiting_approval");
  await approveFlow(s.assistant.store, flow.flow_id, "admin", "admin");
  expect((await processFlow(pipeline, flow.flow_id)).status).toBe("in_progress");
  expect(await runsOf("vault_job")).toContain(runIdForExecution(flow.execution_id));
});

test("an admin's auto_approve covers it: the run starts at once, recorded as approved by the caller's role", async () => {
  const flow = await purgeFlow("admin");
  expect((await processFlow({ ...pipeline, router: pick("vault_job") }, flow.flow_id)).status).toBe("in_progress");
  expect((await s.flow(flow.flow_id)).approval).toMatchObject({ approved_by: "auto_approve", approver_role: "admin", required_role: "admin" });
});

test("execution checks the approver's role again: an approval below the param's min_role fails the flow and starts no run", async () => {
  const flow = await purgeFlow();
  await s.assistant.store.update(flow.flow_id, {
    status: "approved",
    dag_id: "vault_job",
    params: { purge: true },
    phases_completed: ["dag_discovery", "dag_validation"],
    approval: { required: true, reasons: [], needs: [], required_role: "op", approved_by: "op1", approver_role: "op" },
  });
  expect((await processFlow(pipeline, flow.flow_id)).status).toBe("failed");
  expect((await s.flow(flow.flow_id)).error_message).toMatch(/conf\.purge needs the role 'admin' or above/);
  expect(await runsOf("vault_job")).not.toContain(runIdForExecution(flow.execution_id));
});

test("the approval of a paused DAG's run is found by its kind, not by the text of its reason", async () => {
  const flow = await s.assistant.store.create({ intent: "polish the paused widgets", requestedParams: {}, autoApprove: false, autoExecute: true });
  await s.assistant.store.update(flow.flow_id, {
    status: "approved",
    dag_id: "paused_job",
    params: {},
    phases_completed: ["dag_discovery", "dag_validation"],
    approval: {
      required: true,
      reasons: ["reworded by a later version"],
      needs: [{ kind: "paused", reason: "reworded by a later version" }],
      approved_by: "op1",
      approver_role: "op",
    },
  });
  expect((await processFlow(pipeline, flow.flow_id)).status).toBe("in_progress");
  const run = (await s.assistant.engine.listDagRuns({ dag_id: "paused_job" })).dag_runs.find((r) => r.dag_run_id === runIdForExecution(flow.execution_id));
  expect(run).toBeDefined();
  expect((await s.flow(flow.flow_id)).warnings.join(" ")).not.toMatch(/paused after this flow was approved/);
});
