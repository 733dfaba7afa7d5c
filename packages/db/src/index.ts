export { createDb, createPool, createClient, ensureDatabase } from "./connection";
export { migrateToLatest } from "./migrate";
export type { MigrateResult } from "./migrate";
export type { FunctionSource } from "./function-sources";
export { prepared, runPrepared } from "./named-statements";
export { createNotificationFeed } from "./notification-feed";
export type { NotificationFeed, NotificationFeedOptions } from "./notification-feed";
export { DAG_CHANGE_CHANNEL } from "./migrations/019-dag-change-notify";
export { parsePgUrl, describeHosts, DatabaseUrlError } from "./multi-host";
export type { ParsedPgUrl, PgHost, TargetSessionAttrs } from "./multi-host";
export { NoUsableHostError } from "./host-choice";
export type { Db, DbOptions, PgPool } from "./connection";
export { claimIdempotencyKey, releaseIdempotencyKey, setIdempotencyRef } from "./idempotency";
export type { IdempotencyClaim } from "./idempotency";
export { DAG_RUN_STATES, TASK_STATES } from "./schema";
export type {
  Database,
  DagRunState,
  TaskState,
  Json,
  DagRow,
  NewDag,
  DagRunRow,
  NewDagRun,
  DagRunUpdate,
  TaskInstanceRow,
  NewTaskInstance,
  TaskInstanceUpdate,
  ImportErrorRow,
  TaskLogRow,
  FlowRow,
  NewFlow,
  HeartbeatRow,
} from "./schema";
export { HOST_STATES } from "./schema";
export type { HostState, HostProvider, HypervisorHostRow, NewHypervisorHost, HypervisorHostUpdate } from "./schema";
