import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { sql } from "kysely";
import { migrateToLatest, type Db } from "@svc/db";
import { engineFunctions, migrateDatabase } from "@svc/engine-sql";
import { createEmptyTestDb, createTestDb, type TestDb } from "@svc/testing";

/** The last numbered migration before the engine's functions became repeatable sources. */
const LAST_PATCHED = "019-dag-change-notify";

let fresh: TestDb;
let upgraded: TestDb;
beforeAll(async () => {
  fresh = await createTestDb("schemafresh");
  upgraded = await createEmptyTestDb("schemaupgr");
});
afterAll(async () => {
  await fresh.drop();
  await upgraded.drop();
});

/** The schema as pg_dump prints it, without the per-run \restrict key of recent pg_dump versions. */
async function schemaOf(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)("pg_dump", ["--schema-only", url], { maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split("\n")
    .filter((l) => !/^\\(un)?restrict /.test(l))
    .join("\n");
}
const functionDefs = async (db: Db) =>
  (
    await sql<{ name: string; def: string }>`select p.proname as name, pg_get_functiondef(p.oid) as def from pg_proc p
      where p.pronamespace = 'public'::regnamespace order by 1`.execute(db)
  ).rows;
const recorded = async (db: Db) => (await sql<{ name: string; hash: string }>`select name, hash from function_source order by name`.execute(db)).rows;

test("a database migrated from scratch and one at the last patched migration, then upgraded, end with the same schema and function bodies", async () => {
  // A database as the migrations left it before the functions had source files.
  const old = await migrateToLatest(upgraded.db, { through: LAST_PATCHED });
  expect(old.error).toBeUndefined();
  expect((await sql<{ t: string | null }>`select to_regclass('function_source')::text as t`.execute(upgraded.db)).rows[0]!.t).toBeNull();

  const up = await migrateDatabase(upgraded.db);
  expect(up.error).toBeUndefined();
  expect(up.functions.map((f) => f.status)).toEqual(engineFunctions().map(() => "Applied"));

  expect(await schemaOf(upgraded.url)).toEqual(await schemaOf(fresh.url));
  expect(await functionDefs(upgraded.db)).toEqual(await functionDefs(fresh.db));
  expect(await recorded(upgraded.db)).toEqual(await recorded(fresh.db));
});

test("each engine function in the database is exactly its source file, and migrating again changes nothing", async () => {
  const sources = engineFunctions();
  expect(sources.map((s) => s.name)).toEqual(["svc_apply_decision", "svc_start_runs", "svc_try_ops"]);
  const defs = new Map((await functionDefs(fresh.db)).map((d) => [d.name, d.def]));
  for (const s of sources) expect(defs.get(s.name)).toBe(s.sql);
  const again = await migrateDatabase(fresh.db);
  expect(again).toEqual({ results: [], functions: sources.map((s) => ({ name: s.name, status: "Unchanged" })) });
});
