import { loadConfig } from "@svc/config";
import { bootDatabase, newInstanceId, onShutdown, startHeartbeat } from "@svc/engine";
import { closeHttpServer, resolveListenHost } from "@svc/http";
import { createLogger } from "@svc/logger";
import { refuseEvictingRedis } from "@svc/queue";
import { createAssistantApp } from "./app";
import { createAssistantDeps } from "./deps";

/** Assistant API service: the REST front of the orchestrator, observe, DAG discovery and chat. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger("assistant-api", config.logLevel, config.logFormat);
  // Decided before anything opens: production without credentials must not start at all.
  const listen = resolveListenHost(config, logger);
  const db = await bootDatabase(config.databaseUrl, logger, "svc-assistant-api");
  // Checked beside the start-up, not before it: an API answers (503 while Redis is away) at once.
  void refuseEvictingRedis(config.redisUrl, logger).catch((e: unknown) => {
    logger.fatal({ err: String(e) }, "refusing to run on this Redis");
    process.exit(1);
  });
  const deps = createAssistantDeps({ config, logger, db });
  const app = createAssistantApp(deps);
  const heartbeat = startHeartbeat(db, "assistant-api", newInstanceId("assistant-api"), 5000, (e) => logger.warn({ err: String(e) }, "heartbeat failed"));
  const server = app.listen(config.http.assistantPort, listen.host, () => logger.info({ host: listen.host, port: config.http.assistantPort }, "assistant API listening"));
  onShutdown(
    logger,
    async () => {
      // Event streams end at once (clients reconnect); requests in progress get the grace.
      deps.sse.streams.closeAll();
      await closeHttpServer(server, config.limits.stopGraceMs);
      await heartbeat.stop();
      await deps.close();
      await db.destroy();
    },
    config.limits.stopGraceMs,
  );
}

main().catch((e) => {
  process.stderr.write(`assistant-api failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
