import { inspect } from "node:util";
import { createDb, ensureDatabase, type Db } from "@svc/db";
import { migrateDatabase } from "@svc/engine-sql";
import type { Logger } from "@svc/logger";

/** How long a starting service waits for Postgres to accept connections before it gives up. */
export const BOOT_WAIT_MS = 60_000;
const BOOT_RETRY_MS = [500, 1000, 2000, 5000];

/**
 * Postgres not (yet) there: nothing listening, the connection reset or timed out, the name not
 * resolving yet (a compose service still starting), or the server starting up or shutting down.
 * Anything else (a refused login, a bad URL) is an answer, not an absence: no wait.
 */
export function isPostgresAway(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "ENOTFOUND", "57P03", "57P01"].includes(code);
}

/**
 * Service start-up: create the database if missing, apply migrations, return a pool. While
 * Postgres is away (restarting, or started after this service) it waits up to `waitMs`, saying so
 * in its log, instead of exiting at once.
 */
export async function bootDatabase(databaseUrl: string, logger: Logger, applicationName: string, waitMs = BOOT_WAIT_MS): Promise<Db> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      if (await ensureDatabase(databaseUrl)) logger.info("created the metadata database");
      break;
    } catch (e) {
      const delay = BOOT_RETRY_MS[Math.min(attempt, BOOT_RETRY_MS.length - 1)]!;
      if (!isPostgresAway(e) || Date.now() + delay > deadline) throw e;
      logger.warn({ err: String(e), attempt: attempt + 1, retryInMs: delay }, "Postgres is not reachable yet; waiting");
      await new Promise((r) => setTimeout(r, delay));
    }
  }
  const db = createDb(databaseUrl, { applicationName });
  const { error, results, functions } = await migrateDatabase(db);
  for (const r of results) logger.info({ migration: r.migrationName, status: r.status }, "migration");
  for (const f of functions) if (f.status === "Applied") logger.info({ function: f.name }, "function applied");
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
