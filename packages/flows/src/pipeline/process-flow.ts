import type { FlowRow } from "@svc/db";
import type { CatalogueDag } from "../catalogue";
import type { ParamError } from "@svc/dags";
import type { FlowPatch, FlowStore } from "../flow-store";
import { patchFlow, phasesOf, type PipelineDeps, type ProcessResult } from "./deps";
import { discover } from "./discovery";
import { execute } from "./execution";
import { validate } from "./validation";

/**
 * Run whatever the flow still needs, from what Postgres says it has done: a job delivered twice,
 * or after a crash, resumes at the first phase not recorded and never repeats a finished one.
 * Flows waiting for the user or finished are returned as they are.
 */
export async function processFlow(deps: PipelineDeps & { workflowUiUrl: string }, flowId: string): Promise<ProcessResult> {
  // A new flow (the usual job) moves to planning in the same statement that reads it.
  let flow: FlowRow | undefined = (await deps.store.update(flowId, { status: "planning" }, ["pending"])) ?? (await deps.store.get(flowId));
  if (!flow) return { flowId, status: "not_found" };

  let catalogue: CatalogueDag[] | undefined;
  let paramErrors: ParamError[] | undefined;
  let unsaved: FlowPatch | undefined;
  if (flow.status === "planning" && !phasesOf(flow).includes("dag_discovery")) {
    ({ flow, catalogue, unsaved } = await discover(deps, flow));
  }
  if (flow.status === "planning" && !phasesOf(flow).includes("dag_validation")) {
    ({ flow, paramErrors } = await validate(unsaved ? savingWithNext(deps, unsaved) : deps, flow, catalogue));
    unsaved = undefined;
  }
  if (unsaved) flow = await patchFlow(deps.store, flow, unsaved, ["planning"]);
  if (flow.status === "planning" || flow.status === "approved") {
    flow = await execute(deps, flow, deps.workflowUiUrl);
  }
  return { flowId, status: flow.status, ...(paramErrors ? { paramErrors } : {}), flow };
}

/** The deps with a store whose next update also writes `unsaved` (the routing, saved with validation's outcome: one statement, not two). */
function savingWithNext<D extends PipelineDeps>(deps: D, unsaved: FlowPatch): D {
  let left: FlowPatch | undefined = unsaved;
  const update: FlowStore["update"] = (flowId, patch, expect) => {
    const merged = left ? { ...left, ...patch } : patch;
    left = undefined;
    return deps.store.update(flowId, merged, expect);
  };
  return { ...deps, store: { ...deps.store, update } };
}
