import { inspect } from "node:util";
import { DEFAULT_MIGRATION_LOCK_TABLE, MIGRATION_LOCK_ID, Migrator, PostgresAdapter, type Kysely, type MigrationResult } from "kysely";
import { MIGRATIONS } from "./connection";
import { applyFunctionSources, type FunctionSource, type FunctionSourceResult } from "./function-sources";

export interface MigrateOptions {
  /**
   * Repeatable sources applied after the numbered migrations, each again only when its text changes
   * (the engine gives its functions: `@svc/engine-sql`).
   */
  functions?: readonly FunctionSource[];
  /** Stop after this numbered migration (default: the last); with it, no function source is applied. */
  through?: string;
}

export interface MigrateResult {
  error?: Error;
  results: MigrationResult[];
  /** One entry per function source given, in their order (empty when a numbered migration failed). */
  functions: FunctionSourceResult[];
}

// Kysely's own migration lock (a session advisory lock on a fixed key), taken here on one
// connection around both steps: the numbered migrations (Kysely takes it again, it nests) and
// the function sources run under one hold, so no other migrator runs between them.
const LOCK = new PostgresAdapter();
const LOCK_OPTIONS = Object.freeze({ lockTable: DEFAULT_MIGRATION_LOCK_TABLE, lockRowId: MIGRATION_LOCK_ID });

const asError = (e: unknown) => (e instanceof Error ? e : new Error(inspect(e)));

/**
 * Apply pending numbered migrations, then the function sources given (in one transaction of their
 * own, under the same lock); returns what was applied instead of throwing mid-way.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, opts: MigrateOptions = {}): Promise<MigrateResult> {
  if (opts.through !== undefined && !(opts.through in MIGRATIONS)) throw new Error(`no migration named ${opts.through}`);
  let numbered: MigrationResult[] = [];
  try {
    return await db.connection().execute(async (conn): Promise<MigrateResult> => {
      await LOCK.acquireMigrationLock(conn, LOCK_OPTIONS);
      try {
        const migrator = new Migrator({ db: conn, provider: { getMigrations: async () => MIGRATIONS } });
        const { error, results } = opts.through === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(opts.through);
        numbered = results ?? [];
        if (error !== undefined) return { error: asError(error), results: numbered, functions: [] };
        if (opts.through !== undefined) return { results: numbered, functions: [] };
        const sources = opts.functions ?? [];
        const functions = await conn.transaction().execute((trx) => applyFunctionSources(trx, sources));
        return { results: numbered, functions };
      } finally {
        await LOCK.releaseMigrationLock(conn, LOCK_OPTIONS);
      }
    });
  } catch (e) {
    // No connection, the lock, or a function source failed (its transaction rolled back).
    return { error: asError(e), results: numbered, functions: [] };
  }
}
