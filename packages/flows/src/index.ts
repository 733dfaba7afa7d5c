// Public API of @svc/flows: orchestration flows shared by the assistant-api and the orchestrator.
export { FLOW_STATUSES, ACTIVE_PLANNING_STATUSES, isSettledStatus } from "./flow-status";
export { runIdForExecution, FLOW_ID_PATTERN } from "./ids";
export { createFlowStore } from "./flow-store";
export type { FlowStore } from "./flow-store";
export { toFlowView, workflowUiUrlOf } from "./flow-view";
export { loadCatalogue } from "./catalogue";
export { createFlowRouter } from "./flow-router";
export type { FlowRouter } from "./flow-router";
export { syncFlowWithRun } from "./run-sync";
export { approveFlow, cancelFlow } from "./decisions";
export { processFlow } from "./pipeline/process-flow";
export type { PipelineDeps, ProcessResult } from "./pipeline/deps";
export type { PlanHosts } from "./pipeline/placement-preview";
export { createCloudPlanner } from "./pipeline/cloud-plan";
export { createCatalogueReadiness } from "./pipeline/catalogue-ready";
export { createServiceEngine } from "./service-engine";
export { answerFlow } from "./answer";
