// Public API of @svc/engine: the engine API and what the processes around it share. The worker's and
// scheduler's entry is @svc/engine/runtime; the operators' ports are @svc/engine/ports.
export { createQueueNotifier, nullNotifier } from "./notifier";
export type { Notifier } from "./notifier";
export { decideRun } from "./core/decide";
export type { TiView } from "./core/decide";
export { startEngineRuntime, newInstanceId } from "./runtime/start-runtime";
export type { EngineRuntime } from "./runtime/start-runtime";
export { dagSettingsFromConfig } from "./runtime/settings";
export { startHeartbeat } from "./runtime/heartbeat";
export { bootDatabase, onShutdown } from "./runtime/boot";
export { microBatch } from "./runtime/micro-batch";
export { syncDagFolder } from "./processor/sync-dag-folder";
export { createEngineApi } from "./api/engine-api";
export type { EngineApi } from "./api/engine-api";
export { openEngineApi } from "./api/open-engine-api";
export { listenedDefinitions } from "./api/listened-definitions";
export { API_COMPAT_VERSION } from "./api/health";
export { dagEdges, topoOrder } from "./api/dag-graph";
export {
  API_COMPONENTS,
  DagSchema,
  DagDetailSchema,
  DagCollectionSchema,
  DagRunSchema,
  DagRunCollectionSchema,
  TaskInstanceSchema,
  TaskInstanceCollectionSchema,
  TaskInstanceReferenceCollectionSchema,
  TaskCollectionSchema,
  ImportErrorSchema,
  ImportErrorCollectionSchema,
  HealthInfoSchema,
  VersionInfoSchema,
  TaskLogSchema,
} from "./api/schemas";
export type { ApiDag, ApiDagDetail, ApiDagRun, ApiTaskInstance, ApiImportError } from "./api/schemas";
