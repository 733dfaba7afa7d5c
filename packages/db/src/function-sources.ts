import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";

/**
 * The current definition of one database function, as its owner keeps it (one file each, e.g. the
 * engine's `packages/engine-sql/sql/<name>.sql`): `sql` creates the function `name`. The migrator
 * applies it after the numbered migrations, and again only when its text changes.
 */
export interface FunctionSource {
  name: string;
  sql: string;
}

/** What the migrator did with one function source: applied (new or changed text) or unchanged. */
export interface FunctionSourceResult {
  name: string;
  status: "Applied" | "Unchanged";
}

/** The table that records, for each function source applied, the hash of the text it was applied from. */
const FUNCTION_SOURCE_TABLE = "function_source";

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const sourceHash = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * Apply the sources whose text is new or changed since they were last applied, in one transaction
 * (the caller holds the migration lock). A changed source first drops every function of its name
 * in the current schema (so its signature or return type may change), then runs its text; a
 * source that does not create its function fails the whole step, which then changes nothing.
 */
export async function applyFunctionSources<DB>(trx: Kysely<DB>, sources: readonly FunctionSource[]): Promise<FunctionSourceResult[]> {
  const names = new Set<string>();
  for (const s of sources) {
    if (!NAME.test(s.name)) throw new Error(`function source: invalid function name ${JSON.stringify(s.name)}`);
    if (names.has(s.name)) throw new Error(`function source: ${s.name} given twice`);
    names.add(s.name);
  }
  await sql`create table if not exists ${sql.table(FUNCTION_SOURCE_TABLE)} (
    name text primary key,
    hash text not null,
    applied_at timestamptz not null default now()
  )`.execute(trx);
  const { rows } = await sql<{ name: string; hash: string }>`select name, hash from ${sql.table(FUNCTION_SOURCE_TABLE)}`.execute(trx);
  const applied = new Map(rows.map((r) => [r.name, r.hash]));
  const results: FunctionSourceResult[] = [];
  for (const s of sources) {
    const hash = sourceHash(s.sql);
    if (applied.get(s.name) === hash) {
      results.push({ name: s.name, status: "Unchanged" });
      continue;
    }
    await dropFunctions(trx, s.name);
    await sql.raw(s.sql).execute(trx);
    if (!(await functionExists(trx, s.name))) throw new Error(`function source ${s.name}: its text does not create function ${s.name}`);
    await sql`insert into ${sql.table(FUNCTION_SOURCE_TABLE)} (name, hash) values (${s.name}, ${hash})
      on conflict (name) do update set hash = excluded.hash, applied_at = now()`.execute(trx);
    results.push({ name: s.name, status: "Applied" });
  }
  return results;
}

/** Every function of this name in the current schema (each overload), by its signature. */
async function signaturesOf<DB>(db: Kysely<DB>, name: string): Promise<string[]> {
  const { rows } = await sql<{ signature: string }>`select p.oid::regprocedure::text as signature from pg_proc p
    where p.proname = ${name} and p.pronamespace = current_schema()::regnamespace order by p.oid`.execute(db);
  return rows.map((r) => r.signature);
}

async function dropFunctions<DB>(db: Kysely<DB>, name: string): Promise<void> {
  // The signature is the catalog's own rendering (quoted where needed), not caller text.
  for (const signature of await signaturesOf(db, name)) await sql.raw(`drop function ${signature}`).execute(db);
}

const functionExists = async <DB>(db: Kysely<DB>, name: string) => (await signaturesOf(db, name)).length > 0;
