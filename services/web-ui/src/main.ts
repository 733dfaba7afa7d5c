import { assertTrustedFiles, loadConfig } from "@svc/config";
import { newInstanceId, onShutdown, openEngineApi, startHeartbeat } from "@svc/engine";
import { createHostService, ensureLocalHost } from "@svc/hosts";
import { closeHttpServer, createOpenStreams, resolveListenHost } from "@svc/http";
import { createLogger } from "@svc/logger";
import { operatorCatalog } from "@svc/operators/catalog";
import { pingRedis, refuseEvictingRedis } from "@svc/queue";
import { createWebUiApp } from "./app";

/** Web UI process: config, database, queues, HTTP server, graceful shutdown on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // Host probes use the SSH key: owner-only, or no start (as the worker).
  assertTrustedFiles(config);
  const logger = createLogger("web-ui", config.logLevel, config.logFormat);
  // Decided before anything opens: production without credentials must not start at all.
  const listen = resolveListenHost(config, logger);
  // Checked beside the start-up, not before it: an API answers (503 while Redis is away) at once.
  void refuseEvictingRedis(config.redisUrl, logger).catch((e: unknown) => {
    logger.fatal({ err: String(e) }, "refusing to run on this Redis");
    process.exit(1);
  });

  const { db, queues, api } = openEngineApi(config, logger, "web-ui", operatorCatalog());
  // `local` is the host the stack runs on, made once from SVC_SSH_* and SVC_LIBVIRT_URI; a failure is
  // the inventory's alone (the engine API serves on), so it is logged, not fatal.
  void ensureLocalHost(db, config).then(
    (r) => (r.drift.length ? logger.warn({ drift: r.drift }, "host 'local' differs from the settings; the inventory is kept") : undefined),
    (e: unknown) => logger.warn({ err: String(e) }, "cannot make host 'local' in the inventory"),
  );
  // Live-update streams of this process: capped at SVC_MAX_OPEN_STREAMS, all ended on shutdown.
  const streams = createOpenStreams(config.limits.maxOpenStreams);
  // The ask box reaches the assistant API of this host (same credentials, forwarded per request).
  const app = createWebUiApp({
    api,
    auth: config.auth,
    trustProxy: config.http.trustProxy,
    allowedHosts: config.allowedHosts,
    queue: { ping: () => pingRedis(queues.connection) },
    hosts: createHostService({ db }),
    logger,
    ui: { db, assistantUrl: `http://127.0.0.1:${config.http.assistantPort}`, streams },
  });
  const heartbeat = startHeartbeat(db, "web-ui", newInstanceId("web-ui"), 5000, (e) => logger.warn({ err: String(e) }, "heartbeat failed"));
  const server = app.listen(config.http.webUiPort, listen.host, () => {
    logger.info({ host: listen.host, port: config.http.webUiPort, open: listen.open }, "web-ui listening");
  });
  server.on("error", (e) => {
    logger.fatal({ err: String(e) }, "cannot listen");
    process.exit(1);
  });

  onShutdown(
    logger,
    async () => {
      // Live-update streams end at once (the page reconnects); other requests get the grace.
      streams.closeAll();
      await closeHttpServer(server, config.limits.stopGraceMs);
      await heartbeat.stop();
      await queues.close();
      await db.destroy();
    },
    config.limits.stopGraceMs,
  );
}

main().catch((e) => {
  process.stderr.write(`web-ui: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
