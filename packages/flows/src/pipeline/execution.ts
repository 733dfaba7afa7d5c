import type { ParamRole } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import { AlreadyExistsError, isSvcError, type ErrorCode } from "@svc/errors";
import { workflowUiUrlOf } from "../flow-view";
import { runIdForExecution } from "../ids";
import { patchFlow, phasesOf, routerNotes, type PipelineDeps } from "./deps";
import { approvalOf, approvedWhilePaused, roleMeets } from "./approval-needs";

/** Engine errors that retrying cannot fix: the flow fails with the engine's message (forbidden: a reserved param the approval did not cover). */
const PERMANENT: readonly ErrorCode[] = ["dag_not_found", "params_invalid", "dag_has_import_errors", "bad_request", "forbidden"];

/**
 * Phase 3: create the run (on a paused DAG, one run the approval covered; the DAG stays paused). The run id derives from the flow's
 * execution id, so a re-delivered job finds its run (AlreadyExists) instead of creating a second.
 */
export async function execute(deps: PipelineDeps, flow: FlowRow, workflowUiUrl: string): Promise<FlowRow> {
  const dagId = flow.dag_id!;
  const runId = runIdForExecution(flow.execution_id);
  let warnings = [...(flow.warnings ?? [])];
  const expect = ["planning", "approved"] as const;
  try {
    if (!flow.run_id) {
      const dag = await deps.engine.getDag(dagId);
      // Approved for a paused DAG: this one run starts, the DAG stays paused. Paused since an
      // approval that did not cover it: the run waits in the queue until someone unpauses the DAG.
      const runWhilePaused = dag.is_paused && approvedWhilePaused(flow);
      if (dag.is_paused && !runWhilePaused) {
        warnings = [...warnings, `DAG ${dagId} was paused after this flow was approved: its run is queued until the DAG is unpaused.`];
      }
      try {
        // Checked again here, against the DAG as it is now: every param reserved for a role (min_role)
        // needs whoever approved (or the caller, with auto_approve) to have that role; no approval, no reserved params.
        const { approvedBy, approverRole } = approvalOf(flow);
        const callerHasRole = (role: ParamRole) => approvedBy !== null && roleMeets(approverRole, role);
        await deps.engine.triggerDagRun(dagId, { conf: flow.params, runId, note: `flow ${flow.flow_id}: ${flow.intent}`.slice(0, 2000), runWhilePaused, callerHasRole });
        await deps.store.audit("orchestrator", "dag_run.created", `${dagId}/${runId}`, { flow_id: flow.flow_id });
      } catch (e) {
        if (!(e instanceof AlreadyExistsError)) throw e;
        // Same run id: created by an earlier delivery of this job. Anything else (a logical-date clash) must retry.
        await deps.engine.getDagRun(dagId, runId);
      }
    }
  } catch (e) {
    if (!isSvcError(e) || !PERMANENT.includes(e.code)) throw e;
    deps.logger.warn({ flowId: flow.flow_id, dagId, code: e.code }, "dag run not created");
    return patchFlow(
      deps.store,
      flow,
      {
        status: "failed",
        warnings,
        error_message: e.message,
        summary: `Could not start ${dagId}: ${e.message}`,
        phases_skipped: ["dag_execution"],
        next_steps: ["Check the DAG in the workflow UI, then send the intent again.", ...routerNotes(flow.router)],
      },
      expect,
    );
  }
  const phases = phasesOf(flow);
  deps.logger.info({ flowId: flow.flow_id, dagId, runId }, "flow executing");
  return patchFlow(
    deps.store,
    flow,
    {
      status: "in_progress",
      run_id: runId,
      warnings,
      phases_completed: phases.includes("dag_execution") ? phases : [...phases, "dag_execution"],
      summary: `Running ${dagId} (run ${runId}) with ${JSON.stringify(flow.params)}.`,
      next_steps: [
        `Follow it: GET /orchestrator/flows/${flow.flow_id}/events (live) or POST /orchestrator/observe?dag_id=${dagId}&run_id=${runId}.`,
        `Grid view: ${workflowUiUrlOf(workflowUiUrl, dagId)}`,
        ...routerNotes(flow.router),
      ],
    },
    expect,
  );
}
