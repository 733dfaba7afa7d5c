// Public API of @svc/flows: orchestration flows shared by the assistant-api and the orchestrator.
export {
  FLOW_STATUSES, PHASES, ACTIVE_PLANNING_STATUSES, WAITING_STATUSES, FINAL_STATUSES, CANCELLABLE_STATUSES, isFinalStatus, isSettledStatus,
} from "./flow-status";
export type { FlowStatus, Phase } from "./flow-status";
export { newFlowId, newExecutionId, runIdForExecution, FLOW_ID_PATTERN } from "./ids";
export { createFlowStore } from "./flow-store";
export type { FlowStore, FlowPatch, NewFlowInput } from "./flow-store";
export { toFlowView, statusEndpointOf, workflowUiUrlOf } from "./flow-view";
export type { FlowView, UserAction, InputRequestView } from "./flow-view";
export { approvalReason } from "./approval";
export { loadCatalogue } from "./catalogue";
export type { CatalogueDag } from "./catalogue";
export { resolveParams } from "./params";
export type { ResolvedParams } from "./params";
export { createFlowRouter, fallbackReasonOf } from "./flow-router";
export type { FlowRouter } from "./flow-router";
export { syncFlowWithRun } from "./run-sync";
export { approveFlow, cancelFlow } from "./decisions";
export { processFlow } from "./pipeline/process-flow";
export type { PipelineDeps, ProcessResult } from "./pipeline/deps";
export { createServiceEngine } from "./service-engine";
export { answerFlow } from "./answer";
export type { FlowAnswer } from "./answer";
