// The orchestrator as a library (tests, the development stack); main.ts is the process entry.
export { createOrchestrator } from "./orchestrator";
export type { Orchestrator, OrchestratorDeps } from "./orchestrator";
