import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Kysely } from "kysely";
import { migrateToLatest, type FunctionSource, type MigrateResult } from "@svc/db";

/**
 * The plpgsql functions of the engine's hot path (svc_try_ops, svc_apply_decision,
 * svc_start_runs), each in `sql/<name>.sql`: the definition that runs in Postgres, as
 * `pg_get_functiondef` prints it. Change a function by editing its file; the migrator applies it
 * again because its hash changed (no numbered migration). The numbered migrations that created
 * earlier versions stay as they were applied.
 */
const ENGINE_SQL_DIR = join(__dirname, "..", "sql");

/** The engine's function sources, by file name (`<function>.sql`), in name order. */
export function engineFunctions(): FunctionSource[] {
  const dir = ENGINE_SQL_DIR;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => ({ name: basename(f, ".sql"), sql: readFileSync(join(dir, f), "utf8") }));
}

/** The product's migration: the numbered migrations of @svc/db, then the engine's functions. */
export function migrateDatabase<DB>(db: Kysely<DB>): Promise<MigrateResult> {
  return migrateToLatest(db, { functions: engineFunctions() });
}
