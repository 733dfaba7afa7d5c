import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, type EngineApi } from "@svc/engine";
import type { Logger } from "@svc/logger";
import { operatorCatalog } from "@svc/operators/catalog";
import type { Queues } from "@svc/queue";

/** The engine API as a service uses it: notifications go to the scheduler over its queue. */
export function createServiceEngine(o: { db: Db; queues: Pick<Queues, "scheduler">; config: SvcConfig; logger: Logger }): EngineApi {
  return createEngineApi({
    db: o.db,
    notifier: createQueueNotifier(o.queues, (e) => o.logger.warn({ err: String(e) }, "scheduler notify failed")),
    dagsDir: o.config.dagsDir,
    catalog: operatorCatalog(),
    settings: dagSettingsFromConfig(o.config),
    maxPageLimit: o.config.http.maxPageLimit,
    cloudApproval: o.config.placement.cloudApproval,
    logger: o.logger,
  });
}
