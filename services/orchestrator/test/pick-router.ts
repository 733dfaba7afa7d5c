import type { RouteResult } from "@svc/assistant";
import { createFlowRouter, type FlowRouter, type PipelineDeps } from "@svc/flows";
import { silentLogger } from "@svc/logger";
import type { Stack } from "../../assistant-api/test/stack";

/** A router that always picks `dagId` with `params`, as a confident offline match would. */
export const pick = (dagId: string, params: Record<string, unknown> = {}): FlowRouter => ({
  mode: "offline",
  model: null,
  route: async (): Promise<RouteResult> => ({
    status: "ready",
    dag_id: dagId,
    confidence: 1,
    params,
    candidates: [{ dag_id: dagId, score: 9 }],
    reason: "test",
    mode: "offline",
    warnings: [],
  }),
});

/** The flow pipeline over a stack's assistant, with the stack's configured router. */
export const pipelineOf = (s: Stack): PipelineDeps & { workflowUiUrl: string } => {
  const a = s.assistant;
  return { store: a.store, engine: a.engine, router: createFlowRouter(s.config.model, silentLogger()), logger: silentLogger(), workflowUiUrl: s.config.workflowUiUrl };
};
