// The assistant tool server as a library (tests, the development stack); main.ts is the process entry.
export { createAssistantServer, assistantTools, createIntentStateCodec, ASSISTANT_SERVER_NAME } from "./server";
export type { AssistantToolDeps } from "./deps";
export { createAssistantClient, authHeaderOf } from "./assistant-client";
export type { AssistantClient } from "./assistant-client";
export { flowSummary } from "./flow-shape";
