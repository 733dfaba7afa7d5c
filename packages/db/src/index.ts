export { createDb, createPool, migrateToLatest, ensureDatabase } from "./connection";
export type { Db, DbOptions, PgPool } from "./connection";
export { DAG_RUN_STATES, TASK_STATES } from "./schema";
export type {
  Database, DagRunState, TaskState, Json,
  DagRow, NewDag, DagRunRow, NewDagRun, DagRunUpdate, TaskInstanceRow, NewTaskInstance, TaskInstanceUpdate,
  ImportErrorRow, TaskLogRow, FlowRow, NewFlow, HeartbeatRow,
} from "./schema";
