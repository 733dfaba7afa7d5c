// The workflow tool server as a library (tests, the development stack); main.ts is the process entry.
export { createWorkflowServer, workflowTools, WORKFLOW_SERVER_NAME } from "./server";
export type { WorkflowToolDeps } from "./deps";
export { runIdForKey, triggerRun } from "./trigger";
