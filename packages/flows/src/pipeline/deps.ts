import type { ParamError } from "@svc/dags";
import type { FlowRow } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import type { Logger } from "@svc/logger";
import type { FlowStatus, Phase } from "../flow-status";
import type { FlowPatch, FlowStore } from "../flow-store";
import type { FlowRouter } from "../flow-router";
import type { PlanHosts } from "./placement-preview";

/** What the intent pipeline needs; the orchestrator service passes its own. */
export interface PipelineDeps {
  store: FlowStore;
  engine: Pick<EngineApi, "listDagDefinitions" | "getDag" | "triggerDagRun" | "getDagRun">;
  router: FlowRouter;
  logger: Logger;
  /** The host inventory (cached): a plan that creates VMs shows where they would go; host questions are answered. */
  hosts?: PlanHosts;
  /**
   * Whether the DAG folder has been processed, waiting a bounded time for it (createCatalogueReadiness).
   * Asked only when nothing matched: an intent sent while the stack starts waits for the workflows
   * instead of being refused over an empty catalogue.
   */
  catalogueReady?: () => Promise<boolean>;
}

/** What processing a flow job returns to the waiting API. */
export interface ProcessResult {
  flowId: string;
  status: string;
  /** Explicit params the DAG rejected: the API answers 400 naming them. */
  paramErrors?: ParamError[];
  /**
   * The flow as the job left it (committed before the job completes): the API answers with it
   * instead of reading it again. Through the queue its dates arrive as ISO strings.
   */
  flow?: FlowRow;
}

/** Apply a guarded patch; when another writer moved the flow first, return the flow as it is now. */
export async function patchFlow(store: FlowStore, flow: FlowRow, patch: FlowPatch, expect: readonly FlowStatus[]): Promise<FlowRow> {
  return (await store.update(flow.flow_id, patch, expect)) ?? (await store.require(flow.flow_id));
}

/** The phases a flow row has completed. */
export const phasesOf = (flow: FlowRow): Phase[] => (flow.phases_completed as Phase[]) ?? [];

/** The note every phase keeps in next_steps when an LLM router fell back to offline routing. */
export function routerNotes(router: unknown): string[] {
  const reason = (router as { fallback_reason?: unknown } | null)?.fallback_reason;
  return typeof reason === "string" && reason ? [`The language model was not used (${reason}); the request was routed offline.`] : [];
}
