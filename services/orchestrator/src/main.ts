import { loadConfig } from "@svc/config";
import { bootDatabase, onShutdown } from "@svc/engine";
import { createLogger } from "@svc/logger";
import { refuseEvictingRedis } from "@svc/queue";
import { createOrchestrator } from "./orchestrator";

/** Orchestrator service: consumes `intents` jobs and runs the intent pipeline. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger("orchestrator", config.logLevel, config.logFormat);
  const db = await bootDatabase(config.databaseUrl, logger, "svc-orchestrator");
  await refuseEvictingRedis(config.redisUrl, logger);
  const orchestrator = createOrchestrator({ db, config, logger, weigher: config.placement.weigher });
  onShutdown(
    logger,
    async () => {
      await orchestrator.close();
      await db.destroy();
    },
    config.limits.stopGraceMs,
  );
}

main().catch((e) => {
  process.stderr.write(`orchestrator failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
