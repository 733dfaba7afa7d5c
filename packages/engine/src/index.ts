// Public API of @svc/engine. Each area appends its own export lines.
export { createQueueNotifier, nullNotifier, recordingNotifier } from "./notifier";
export type { Notifier, RecordingNotifier } from "./notifier";
export { decideRun, evaluateTriggerRule, countUpstream, canRetry, retryDelayMs, runStateOf, isFinished } from "./core";
export type { TiView, RunDecision, RuleVerdict, UpstreamCounts } from "./core";
export {
  evaluateRun, startQueuedRuns, executeTry, claimTry, commitTry, tryBatcher, reconcile, reapZombies, startWorker, startScheduler,
  startEngineRuntime, newInstanceId, syncCronSchedulers, dagSettingsFromConfig, beat, startHeartbeat, bootDatabase, onShutdown,
} from "./runtime";
export type { TryBatcher } from "./runtime/task-claim";
export type { RuntimeDeps, ReconcileReport, EngineWorker, EngineScheduler, SchedulerOptions, EngineRuntime, EngineRuntimeOptions } from "./runtime";
export { syncDagFolder, watchDagFolder, getImportErrorForDag } from "./processor";
export type { SyncDagFolderDeps, SyncReport, WatchDagFolderOptions } from "./processor";
export {
  createEngineApi, RUN_ID_PATTERN, parseApiDate, DEFAULT_MAX_PAGE_LIMIT, SCHEDULER_HEALTH_WINDOW_MS, API_COMPAT_VERSION,
  expandTaskIds, dagEdges, topoOrder, isoDate, isoOrNull, formatLogLine, encodeLogToken, decodeLogToken, timetableDescription, scheduleInterval,
  API_COMPONENTS, DagSchema, DagDetailSchema, DagCollectionSchema, DagRunSchema, DagRunCollectionSchema, TaskInstanceSchema,
  TaskInstanceCollectionSchema, TaskInstanceReferenceCollectionSchema, TaskSchema, TaskCollectionSchema, ImportErrorSchema,
  ImportErrorCollectionSchema, HealthInfoSchema, VersionInfoSchema, TaskLogSchema, DAG_RUN_STATE_VALUES,
} from "./api";
export type {
  EngineApi, EngineApiDeps, ListDagsQuery, PausePatternOptions, DagDefinitionEntry, ListDagDefinitionsOptions, ListDagRunsQuery, ListTaskInstancesQuery, ClearTaskInstancesOptions,
  TriggerOptions, RunType, MarkableRunState, TaskLogOptions, TaskLogChunk, PageQuery,
  ApiDag, ApiDagDetail, ApiDagRun, ApiTaskInstance, ApiTaskInstanceReference, ApiTask, ApiImportError, ApiHealthInfo, ApiVersionInfo,
  ApiDagCollection, ApiDagRunCollection, ApiTaskInstanceCollection, ApiTaskInstanceReferenceCollection, ApiTaskCollection, ApiImportErrorCollection,
} from "./api";
