import { loadConfig } from "@svc/config";
import { bootDatabase, onShutdown, startEngineRuntime } from "@svc/engine";
import { createLogger } from "@svc/logger";
import { refuseEvictingRedis } from "@svc/queue";

/** Worker service: runs task tries from the `tasks` queue (SVC_WORKER_CONCURRENCY at a time). */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger("worker", config.logLevel);
  const db = await bootDatabase(config.databaseUrl, logger, "svc-worker");
  await refuseEvictingRedis(config.redisUrl, logger);
  const rt = startEngineRuntime({ db, config, logger, scheduler: false });
  // Running tries get SVC_STOP_GRACE_MS to finish; the ones still running are handed back.
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
  process.stderr.write(`worker failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
