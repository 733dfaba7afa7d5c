import { silentLogger } from "@svc/logger";
import { syncDagFolder } from "../processor";
import { clearOps } from "./clear";
import { dagRunOps } from "./dag-runs";
import { dagOps } from "./dags";
import type { ApiContext, EngineApiDeps } from "./deps";
import { monitoringOps } from "./health";
import { importErrorOps } from "./import-errors";
import { DEFAULT_MAX_PAGE_LIMIT } from "./paging";
import { runStateOps } from "./run-state";
import { taskInstanceOps } from "./task-instances";
import { taskLogOps } from "./task-logs";
import { triggerOps } from "./trigger";

/**
 * The engine API: every read and write on DAGs, runs, task instances, logs and import errors, with
 * Airflow 2 semantics and shapes. The REST API, the CLI, the orchestrator and the MCP servers all
 * go through it; it never runs tasks (the scheduler does), it only writes state and notifies.
 */
export function createEngineApi(deps: EngineApiDeps) {
  const ctx: ApiContext = {
    ...deps,
    maxPageLimit: deps.maxPageLimit ?? DEFAULT_MAX_PAGE_LIMIT,
    settings: deps.settings ?? {},
    logger: deps.logger ?? silentLogger(),
    cloudApproval: deps.cloudApproval ?? "op",
  };

  /** Full rescan of the DAG folder (Airflow's `dags reserialize`); returns the processor's report. */
  async function reserialize() {
    return syncDagFolder({ db: ctx.db, dagsDir: ctx.dagsDir, catalog: ctx.catalog, settings: ctx.settings, logger: ctx.logger, notifier: ctx.notifier });
  }

  return {
    ...dagOps(ctx),
    ...triggerOps(ctx),
    ...dagRunOps(ctx),
    ...runStateOps(ctx),
    ...taskInstanceOps(ctx),
    ...clearOps(ctx),
    ...taskLogOps(ctx),
    ...importErrorOps(ctx),
    ...monitoringOps(ctx),
    reserialize,
  };
}

/** The engine API's methods (names are a contract shared by REST, CLI, orchestrator and MCP). */
export type EngineApi = ReturnType<typeof createEngineApi>;
