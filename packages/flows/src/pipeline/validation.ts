import type { ParamError } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import { loadCatalogue, type CatalogueDag } from "../catalogue";
import { resolveParams, type ResolvedParams } from "../params";
import { approvalNeeds, approvalOf, requiredApproverRole, roleMeets } from "./approval-needs";
import { patchFlow, phasesOf, routerNotes, type PipelineDeps } from "./deps";
import { cloudNeeds } from "./cloud-plan";
import { placementPreview } from "./placement-preview";

type Validated = { flow: FlowRow; paramErrors?: ParamError[] };

const describeParam = (dag: CatalogueDag, name: string) => {
  const s = dag.definition.params[name];
  return s?.description ? `${name} (${s.description})` : name;
};

/**
 * Phase 2: the DAG exists, is active, parsed without errors; params valid (explicit over
 * extracted). Then decide: run now, wait for approval (the DAG asks for it, it is paused, or a
 * param reserved for a role is set), or ask for input.
 */
export async function validate(deps: PipelineDeps, flow: FlowRow, known?: readonly CatalogueDag[]): Promise<Validated> {
  const dagId = flow.dag_id!;
  const catalogue = known ?? (await loadCatalogue(deps.engine));
  const dag = catalogue.find((d) => d.dag_id === dagId);
  if (!dag || !dag.is_active || dag.has_import_errors) return { flow: await rejectUnusableDag(deps, flow, dag) };
  const resolved = resolveParams(dag.definition, flow.params ?? {}, flow.requested_params ?? {});
  const warnings = [...(flow.warnings ?? []), ...resolved.warnings];
  if (resolved.invalid.length) return rejectInvalidParams(deps, flow, resolved, warnings);
  if (resolved.missing.length) return { flow: await askForMissing(deps, flow, dag, resolved, warnings) };
  return { flow: await decideApproval(deps, flow, dag, resolved.params, warnings) };
}

/** A DAG that is gone, inactive or broken rejects the flow. */
function rejectUnusableDag(deps: PipelineDeps, flow: FlowRow, dag: CatalogueDag | undefined): Promise<FlowRow> {
  const dagId = flow.dag_id!;
  const reject = (message: string, next: string[]) =>
    patchFlow(
      deps.store,
      flow,
      { status: "rejected", error_message: message, summary: message, phases_skipped: ["dag_execution"], next_steps: [...next, ...routerNotes(flow.router)] },
      ["planning"],
    );
  if (!dag || !dag.is_active) return reject(`DAG ${dagId} does not exist or is no longer in the DAG folder.`, ["GET /orchestrator/dags lists the workflows that exist."]);
  const next = ["List them with `svc-engine dags list-import-errors`, fix the file, then `dags reserialize`."];
  return reject(`The file of DAG ${dagId} has import errors; it cannot run until they are fixed.`, next);
}

async function rejectInvalidParams(deps: PipelineDeps, flow: FlowRow, resolved: ResolvedParams, warnings: string[]): Promise<Validated> {
  const dagId = flow.dag_id!;
  const list = resolved.invalid.map((e) => `${e.field}: ${e.message}`).join("; ");
  const rejected = await patchFlow(
    deps.store,
    flow,
    {
      status: "rejected",
      warnings,
      error_message: `Invalid params for ${dagId}: ${list}`,
      summary: `Invalid params for ${dagId}: ${list}`,
      phases_skipped: ["dag_execution"],
      next_steps: ["Correct the params named above and send the intent again.", ...routerNotes(flow.router)],
    },
    ["planning"],
  );
  return { flow: rejected, paramErrors: resolved.invalid };
}

function askForMissing(deps: PipelineDeps, flow: FlowRow, dag: CatalogueDag, resolved: ResolvedParams, warnings: string[]): Promise<FlowRow> {
  const names = resolved.missing.map((n) => describeParam(dag, n)).join(", ");
  const example = Object.fromEntries(resolved.missing.map((n) => [n, "..."]));
  return patchFlow(
    deps.store,
    flow,
    {
      status: "needs_input",
      params: resolved.params,
      missing_params: resolved.missing,
      warnings,
      summary: `${dag.dag_id} needs more input: ${names}.`,
      next_steps: [`Send the intent again with "params": ${JSON.stringify(example)}.`, ...routerNotes(flow.router)],
    },
    ["planning"],
  );
}

/**
 * Run now or wait for approval. A paused DAG stays paused: an approval runs this one run. A param
 * reserved for a role (min_role) must be approved by that role or above; auto_approve is the
 * caller's approval given in advance, so it covers only what the caller's own role may approve.
 */
async function decideApproval(deps: PipelineDeps, flow: FlowRow, dag: CatalogueDag, params: Record<string, unknown>, warnings: string[]): Promise<FlowRow> {
  // Where its VMs would go (several hosts only); a VM no host takes is said before anyone approves.
  const placement = await placementPreview(deps.hosts, dag.definition, params, deps.logger);
  // A VM on a cloud host bills its account: an op approves it (the engine refuses the run otherwise).
  const needs = [...approvalNeeds(dag, params), ...cloudNeeds(placement, deps.hosts?.cloudApproval ?? "op")];
  const requiredRole = requiredApproverRole(needs);
  const { autoApproveRole } = approvalOf(flow);
  const autoCovers = autoApproveRole !== null && roleMeets(autoApproveRole, requiredRole);
  if (dag.is_paused) warnings.push(`DAG ${dag.dag_id} is paused: this flow runs one run and leaves the DAG paused.`);
  if (autoApproveRole !== null && needs.length && !autoCovers) {
    warnings.push(`auto_approve does not cover this flow: approving it needs the role '${requiredRole}', the caller has '${autoApproveRole}'.`);
  }
  const reasons = [...(!flow.auto_execute ? ["auto_execute is false"] : []), ...(autoCovers ? [] : needs.map((n) => n.reason))];
  for (const vm of placement?.vms ?? []) if (vm.blocked) warnings.push(vm.summary);
  const base = { params, warnings, placement, missing_params: [], phases_completed: [...phasesOf(flow), "dag_validation" as const] };
  const record = { needs, required_role: requiredRole, ...(autoApproveRole !== null ? { auto_approve_role: autoApproveRole } : {}) };
  if (!reasons.length) {
    const auto = needs.length ? { approved_by: "auto_approve", approver_role: autoApproveRole } : { approved_by: null };
    return patchFlow(deps.store, flow, { ...base, approval: { required: needs.length > 0, reasons: needs.map((n) => n.reason), ...record, ...auto } }, ["planning"]);
  }
  const who = requiredRole === "admin" ? " (by an admin: a param set needs the role 'admin')" : "";
  return patchFlow(
    deps.store,
    flow,
    {
      ...base,
      status: "awaiting_approval",
      approval: { required: true, reasons, ...record, requested_at: new Date().toISOString() },
      summary: `Ready to run ${dag.dag_id} with ${JSON.stringify(params)}. Waiting for approval${who}: ${reasons.join("; ")}.`,
      next_steps: [`POST /orchestrator/flows/${flow.flow_id}/approve to run it, or /cancel to drop it.`, ...routerNotes(flow.router)],
    },
    ["planning"],
  );
}
