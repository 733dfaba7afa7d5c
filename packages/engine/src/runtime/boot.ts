import { inspect } from "node:util";
import { createDb, ensureDatabase, migrateToLatest, type Db } from "@svc/db";
import type { Logger } from "@svc/logger";

/** Service start-up: create the database if missing, apply migrations, return a pool. */
export async function bootDatabase(databaseUrl: string, logger: Logger, applicationName: string): Promise<Db> {
  if (await ensureDatabase(databaseUrl)) logger.info("created the metadata database");
  const db = createDb(databaseUrl, { applicationName });
  const { error, results } = await migrateToLatest(db);
  for (const r of results ?? []) logger.info({ migration: r.migrationName, status: r.status }, "migration");
  if (error) {
    await db.destroy();
    throw error instanceof Error ? error : new Error(inspect(error));
  }
  return db;
}

/** How long past the stop grace a stopping process may take before it is made to exit. */
export const HARD_STOP_MARGIN_MS = 5000;

/**
 * Run `stop` once on SIGINT/SIGTERM, then exit 0 (1 if it failed); a second signal exits at once.
 * `graceMs` (SVC_STOP_GRACE_MS) is what `stop` may spend letting work finish: whatever hangs, the
 * process exits within `graceMs` + 5 s, saying so in its log.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, graceMs: number): void {
  let stopping = false;
  const handler = (sig: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal: sig, graceMs }, "shutting down");
    const hard = setTimeout(() => {
      logger.error({ graceMs, marginMs: HARD_STOP_MARGIN_MS }, "shutdown did not finish within the stop grace; exiting now");
      process.exit(1);
    }, graceMs + HARD_STOP_MARGIN_MS);
    hard.unref();
    stop().then(
      () => process.exit(0),
      (e) => {
        logger.error({ err: String(e) }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => handler("SIGINT"));
  process.once("SIGTERM", () => handler("SIGTERM"));
  exitOnUnhandledRejection(logger);
}

/**
 * A promise rejection nobody handled is a bug whose consequences are unknown: the process exits 1
 * (as Node would), but says so in its own log first, with the stack, so the service's log explains
 * why it ended. Postgres holds the state; a restart (or another instance) carries on.
 */
export function exitOnUnhandledRejection(logger: Logger): void {
  process.once("unhandledRejection", (reason) => {
    logger.fatal({ err: reason instanceof Error ? (reason.stack ?? reason.message) : String(reason) }, "unhandled promise rejection (a bug): exiting");
    process.exit(1);
  });
}
