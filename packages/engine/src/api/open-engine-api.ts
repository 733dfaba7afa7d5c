import type { SvcConfig } from "@svc/config";
import type { OperatorCatalog } from "@svc/dags";
import { createDb, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";
import { createQueues, type Queues } from "@svc/queue";
import { dagSettingsFromConfig } from "@svc/config";
import { createQueueNotifier } from "../notifier";
import { createEngineApi, type EngineApi } from "./engine-api";

/** What a service process that serves the engine API holds: its pool, its producer queues, the API. */
export interface OpenedEngineApi {
  db: Db;
  queues: Queues;
  api: EngineApi;
}

/**
 * The engine API as a service process opens it from configuration: its own database pool (named
 * `applicationName` in pg_stat_activity), producer queues, and a scheduler notifier whose failures
 * are logged (reconciliation catches up). `catalog` validates DAG files on a rescan (the services
 * pass the product's operators, defaultOperators()). The caller closes `queues` and `db` when it stops.
 */
export function openEngineApi(config: SvcConfig, logger: Logger, applicationName: string, catalog: OperatorCatalog): OpenedEngineApi {
  const db = createDb(config.databaseUrl, { applicationName });
  const queues = createQueues({ url: config.redisUrl, prefix: config.redisPrefix });
  const notifier = createQueueNotifier(queues, (e) => logger.warn({ err: String(e) }, "scheduler notification failed; reconciliation will catch up"));
  const api = createEngineApi({
    db,
    notifier,
    dagsDir: config.dagsDir,
    catalog,
    settings: dagSettingsFromConfig(config),
    maxPageLimit: config.http.maxPageLimit,
    cloudApproval: config.placement.cloudApproval,
    logger,
  });
  return { db, queues, api };
}
