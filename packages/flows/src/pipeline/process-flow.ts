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
export async function processFlow(deps: PipelineDeps & { workflowUiUrl: string }, flowId: string, created?: FlowRow): Promise<ProcessResult> {
  let flow: FlowRow | undefined;
  if (created && plannableCopy(deps, flowId, created)) {
    // The flow as the API inserted it: planned from this copy, moved to planning by its first write.
    flow = { ...created, status: "planning" };
    deps = claimingOnFirstWrite(deps);
  } else {
    // A new flow moves to planning in the same statement that reads it.
    flow = (await deps.store.update(flowId, { status: "planning" }, ["pending"])) ?? (await deps.store.get(flowId));
  }
  if (!flow) return { flowId, status: "not_found" };

  let catalogue: readonly CatalogueDag[] | undefined;
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

/**
 * Whether a job's copy of its flow can stand in for reading it: the new flow itself (pending, no
 * phase yet), routed offline (milliseconds: a model's seconds of routing keep the visible claim).
 */
function plannableCopy(deps: PipelineDeps, flowId: string, created: FlowRow): boolean {
  return deps.router.mode === "offline" && created.flow_id === flowId && created.status === "pending" && phasesOf(created).length === 0;
}

/**
 * The deps with a store whose first update also claims the flow: it sets `planning` unless the
 * patch sets a status, and accepts the flow still `pending` where `planning` is expected. When
 * another orchestrator moved the flow first, the guard fails and the caller reads it as it is.
 */
function claimingOnFirstWrite<D extends PipelineDeps>(deps: D): D {
  let first = true;
  const update: FlowStore["update"] = (flowId, patch, expect) => {
    if (!first) return deps.store.update(flowId, patch, expect);
    first = false;
    const widened = expect?.includes("planning") ? [...expect, "pending" as const] : expect;
    return deps.store.update(flowId, { ...patch, status: patch.status ?? "planning" }, widened);
  };
  return { ...deps, store: { ...deps.store, update } };
}
