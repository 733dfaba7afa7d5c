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

/** Run `stop` once on SIGINT/SIGTERM, then exit; a second signal exits at once. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (sig: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal: sig }, "shutting down");
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
}
