import { loadConfig } from "@svc/config";
import { createDb } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, newInstanceId, startHeartbeat } from "@svc/engine";
import { closeHttpServer, resolveListenHost } from "@svc/http";
import { createLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createWebUiApp } from "./app";

/** Web UI process: config, database, queues, HTTP server, graceful shutdown on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger("web-ui", config.logLevel);
  // Decided before anything opens: production without credentials must not start at all.
  const listen = resolveListenHost(config, logger);

  const db = createDb(config.databaseUrl, { applicationName: "web-ui" });
  const queues = createQueues({ url: config.redisUrl, prefix: config.redisPrefix });
  const notifier = createQueueNotifier(queues, (e) => logger.warn({ err: String(e) }, "scheduler notification failed; reconciliation will catch up"));
  const api = createEngineApi({
    db,
    notifier,
    dagsDir: config.dagsDir,
    catalog: defaultOperators(),
    settings: dagSettingsFromConfig(config),
    maxPageLimit: config.http.maxPageLimit,
    logger,
  });
  // The ask box reaches the assistant API of this host (same credentials, forwarded per request).
  const app = createWebUiApp({ api, auth: config.auth, logger, ui: { db, assistantUrl: `http://127.0.0.1:${config.http.assistantPort}` } });
  const heartbeat = startHeartbeat(db, "web-ui", newInstanceId("web-ui"), 5000, (e) => logger.warn({ err: String(e) }, "heartbeat failed"));
  const server = app.listen(config.http.webUiPort, listen.host, () => {
    logger.info({ host: listen.host, port: config.http.webUiPort, open: listen.open }, "web-ui listening");
  });
  server.on("error", (e) => {
    logger.fatal({ err: String(e) }, "cannot listen");
    process.exit(1);
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    // Open SSE streams (the live updates of the grid and the DAG list) are closed after a short grace.
    await closeHttpServer(server, 2000);
    await heartbeat.stop();
    await queues.close();
    await db.destroy();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((e) => {
  process.stderr.write(`web-ui: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
