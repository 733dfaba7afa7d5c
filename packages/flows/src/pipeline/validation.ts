import { restrictedParamsSet, type ParamError } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import { loadCatalogue, type CatalogueDag } from "../catalogue";
import { resolveParams } from "../params";
import { patchFlow, phasesOf, routerNotes, type PipelineDeps } from "./deps";

/** The approval reason of a flow on a paused DAG; execution looks for it before running one run of a paused DAG. */
export const pausedReason = (dagId: string): string => `DAG ${dagId} is paused: approving runs this one run and leaves the DAG paused`;

const describeParam = (dag: CatalogueDag, name: string) => {
  const s = dag.definition.params[name];
  return s?.description ? `${name} (${s.description})` : name;
};

/**
 * Phase 2: the DAG exists, is active, parsed without errors; params valid (explicit over
 * extracted). Then decide: run now, wait for approval (the DAG asks for it, or it is paused), or ask for input.
 */
export async function validate(deps: PipelineDeps, flow: FlowRow, known?: CatalogueDag[]): Promise<{ flow: FlowRow; paramErrors?: ParamError[] }> {
  const dagId = flow.dag_id!;
  const catalogue = known ?? (await loadCatalogue(deps.engine));
  const dag = catalogue.find((d) => d.dag_id === dagId);
  const phases = phasesOf(flow);
  const notes = routerNotes(flow.router);
  const reject = (message: string, next: string[]) =>
    patchFlow(deps.store, flow, { status: "rejected", error_message: message, summary: message, phases_skipped: ["dag_execution"], next_steps: [...next, ...notes] }, ["planning"]);

  if (!dag || !dag.is_active)
    return { flow: await reject(`DAG ${dagId} does not exist or is no longer in the DAG folder.`, ["GET /orchestrator/dags lists the workflows that exist."]) };
  if (dag.has_import_errors) {
    return {
      flow: await reject(`The file of DAG ${dagId} has import errors; it cannot run until they are fixed.`, [
        "List them with `svc-engine dags list-import-errors`, fix the file, then `dags reserialize`.",
      ]),
    };
  }

  const extracted = flow.params ?? {};
  const explicit = flow.requested_params ?? {};
  const resolved = resolveParams(dag.definition, extracted, explicit);
  const warnings = [...(flow.warnings ?? []), ...resolved.warnings];
  if (resolved.invalid.length) {
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
        next_steps: ["Correct the params named above and send the intent again.", ...notes],
      },
      ["planning"],
    );
    return { flow: rejected, paramErrors: resolved.invalid };
  }
  if (resolved.missing.length) {
    const names = resolved.missing.map((n) => describeParam(dag, n)).join(", ");
    const example = Object.fromEntries(resolved.missing.map((n) => [n, "..."]));
    return {
      flow: await patchFlow(
        deps.store,
        flow,
        {
          status: "needs_input",
          params: resolved.params,
          missing_params: resolved.missing,
          warnings,
          summary: `${dagId} needs more input: ${names}.`,
          next_steps: [`Send the intent again with "params": ${JSON.stringify(example)}.`, ...notes],
        },
        ["planning"],
      ),
    };
  }
  // A paused DAG stays paused: an operator approves this one run (auto_approve is an op's approval given in advance).
  // Params reserved for an op or admin (min_role): the flow waits for an op's approval.
  const reserved = restrictedParamsSet(dag.definition, resolved.params).map((p) => `params.${p.name} may only be set by the role '${p.minRole}' or above`);
  const needsApproval = [...(dag.approval_reason ? [dag.approval_reason] : []), ...(dag.is_paused ? [pausedReason(dagId)] : []), ...reserved];
  if (dag.is_paused) warnings.push(`DAG ${dagId} is paused: this flow runs one run and leaves the DAG paused.`);

  const reasons = [...(!flow.auto_execute ? ["auto_execute is false"] : []), ...(flow.auto_approve ? [] : needsApproval)];
  const base = { params: resolved.params, warnings, missing_params: [], phases_completed: [...phases, "dag_validation" as const] };
  if (reasons.length) {
    const waiting = await patchFlow(
      deps.store,
      flow,
      {
        ...base,
        status: "awaiting_approval",
        approval: { required: true, reasons, requested_at: new Date().toISOString() },
        summary: `Ready to run ${dagId} with ${JSON.stringify(resolved.params)}. Waiting for approval: ${reasons.join("; ")}.`,
        next_steps: [`POST /orchestrator/flows/${flow.flow_id}/approve to run it, or /cancel to drop it.`, ...notes],
      },
      ["planning"],
    );
    return { flow: waiting };
  }
  const approval = { required: needsApproval.length > 0, reasons: needsApproval, approved_by: needsApproval.length ? "auto_approve" : null };
  const ready = await patchFlow(
    deps.store,
    flow,
    {
      ...base,
      approval,
    },
    ["planning"],
  );
  return { flow: ready };
}
