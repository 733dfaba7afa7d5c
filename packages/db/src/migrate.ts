import { inspect } from "node:util";
import { DEFAULT_MIGRATION_LOCK_TABLE, MIGRATION_LOCK_ID, Migrator, PostgresAdapter, type Kysely, type Migration, type MigrationResult } from "kysely";
import { applyFunctionSources, type FunctionSource, type FunctionSourceResult } from "./function-sources";
import * as m001 from "./migrations/001-engine";
import * as m002 from "./migrations/002-platform";
import * as m003 from "./migrations/003-flow-details";
import * as m004 from "./migrations/004-hot-path";
import * as m005 from "./migrations/005-set-based-try-ops";
import * as m006 from "./migrations/006-hot-task-updates";
import * as m007 from "./migrations/007-one-trip-decisions";
import * as m008 from "./migrations/008-lean-try-ops";
import * as m009 from "./migrations/009-idempotency-keys";
import * as m010 from "./migrations/010-paused-runs";
import * as m011 from "./migrations/011-triggered-runs";
import * as m012 from "./migrations/012-hosts";
import * as m013 from "./migrations/013-task-hosts";
import * as m014 from "./migrations/014-flow-placement";
import * as m015 from "./migrations/015-hops-in-try-ops";
import * as m016 from "./migrations/016-started-runs-read";
import * as m017 from "./migrations/017-closed-run-reads";
import * as m018 from "./migrations/018-kept-hops-claimed";
import * as m019 from "./migrations/019-dag-change-notify";

const MIGRATIONS: Record<string, Migration> = {
  "001-engine": m001,
  "002-platform": m002,
  "003-flow-details": m003,
  "004-hot-path": m004,
  "005-set-based-try-ops": m005,
  "006-hot-task-updates": m006,
  "007-one-trip-decisions": m007,
  "008-lean-try-ops": m008,
  "009-idempotency-keys": m009,
  "010-paused-runs": m010,
  "011-triggered-runs": m011,
  "012-hosts": m012,
  "013-task-hosts": m013,
  "014-flow-placement": m014,
  "015-hops-in-try-ops": m015,
  "016-started-runs-read": m016,
  "017-closed-run-reads": m017,
  "018-kept-hops-claimed": m018,
  "019-dag-change-notify": m019,
};

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
