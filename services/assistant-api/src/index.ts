// The assistant API as a library (tests, the development stack); main.ts is the process entry.
export { createAssistantApp } from "./app";
export { createAssistantDeps } from "./deps";
export type { AssistantDeps, AssistantResources, AssistantDepsOptions } from "./deps";
export { ASSISTANT_ROUTE_ROLES, assistantRole } from "./route-roles";
