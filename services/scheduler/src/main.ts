import { loadConfig } from "@svc/config";
import { bootDatabase, onShutdown, startEngineRuntime } from "@svc/engine/runtime";
import { createLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { refuseEvictingRedis } from "@svc/queue";

/** Scheduler service: DAG processor, run scheduling, retries, cron, reconciliation, heartbeats. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger("scheduler", config.logLevel, config.logFormat);
  const db = await bootDatabase(config.databaseUrl, logger, "svc-scheduler");
  await refuseEvictingRedis(config.redisUrl, logger);
  const rt = startEngineRuntime({ db, config, logger, operators: defaultOperators(), worker: false });
  onShutdown(
    logger,
    async () => {
      await rt.stop();
      await db.destroy();
    },
    config.limits.stopGraceMs,
  );
}

main().catch((e) => {
  process.stderr.write(`scheduler failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
