export { createEngineApi } from "./engine-api";
export { openEngineApi } from "./open-engine-api";
export { listenedDefinitions } from "./listened-definitions";
export type { OpenedEngineApi } from "./open-engine-api";
export type { EngineApi } from "./engine-api";
export type { EngineApiDeps } from "./deps";
export type { ListDagsQuery, PausePatternOptions, DagDefinitionEntry, ListDagDefinitionsOptions } from "./dags";
export type { ListDagRunsQuery } from "./dag-runs";
export type { ListTaskInstancesQuery } from "./task-instances";
export type { ClearTaskInstancesOptions } from "./clear";
export type { TriggerOptions, RunType } from "./trigger";
export type { MarkableRunState } from "./run-state";
export type { TaskLogOptions, TaskLogChunk } from "./task-logs";
export type { PageQuery } from "./paging";
export { RUN_ID_PATTERN, parseApiDate } from "./trigger";
export { DEFAULT_MAX_PAGE_LIMIT } from "./paging";
export { SCHEDULER_HEALTH_WINDOW_MS, API_COMPAT_VERSION } from "./health";
export { expandTaskIds, dagEdges, topoOrder } from "./dag-graph";
export { isoDate, isoOrNull } from "./serialize";
export { formatLogLine, encodeLogToken, decodeLogToken } from "./task-logs";
export { timetableDescription, scheduleInterval } from "./timetable";
export {
  API_COMPONENTS,
  DagSchema,
  DagDetailSchema,
  DagCollectionSchema,
  DagRunSchema,
  DagRunCollectionSchema,
  TaskInstanceSchema,
  TriggeredDagRunSchema,
  TaskInstanceCollectionSchema,
  TaskInstanceReferenceCollectionSchema,
  TaskSchema,
  TaskCollectionSchema,
  ImportErrorSchema,
  ImportErrorCollectionSchema,
  HealthInfoSchema,
  VersionInfoSchema,
  TaskLogSchema,
  DAG_RUN_STATE_VALUES,
} from "./schemas";
export type {
  ApiDag,
  ApiDagDetail,
  ApiDagRun,
  ApiTaskInstance,
  ApiTriggeredDagRun,
  ApiTaskInstanceReference,
  ApiTask,
  ApiImportError,
  ApiHealthInfo,
  ApiVersionInfo,
  ApiDagCollection,
  ApiDagRunCollection,
  ApiTaskInstanceCollection,
  ApiTaskInstanceReferenceCollection,
  ApiTaskCollection,
  ApiImportErrorCollection,
} from "./schemas";
