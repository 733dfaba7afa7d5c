import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { createDb, MIGRATIONS, type Db } from "./connection";
import { migrateToLatest } from "./migrate";
import { createScratchDb, type ScratchDb } from "./scratch-db";

// @svc/testing migrates with the engine's functions and depends on this package: this file makes
// and drops its own databases through the scratch helper @svc/testing uses, named as it names them.
const ADMIN_URL = process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const made: ScratchDb[] = [];
const extraPools: Db[] = [];

async function freshDb(): Promise<{ url: string; db: Db }> {
  const scratch = await createScratchDb(ADMIN_URL, `svc_test_fnsrc_${randomBytes(4).toString("hex")}`, { max: 2, applicationName: "fnsrc-test" });
  made.push(scratch);
  return scratch;
}
afterAll(async () => {
  for (const db of extraPools) await db.destroy().catch(() => undefined);
  for (const m of made) await m.drop();
});

const answer = (n: number) => ({ name: "t_answer", sql: `create or replace function t_answer() returns int language sql as $$ select ${n} $$` });
const greeting = { name: "t_greeting", sql: "create function t_greeting(p text) returns text language sql as $$ select 'hello ' || p $$" };
const oids = async (db: Db) =>
  Object.fromEntries(
    (await sql<{ proname: string; oid: number }>`select proname, oid::int as oid from pg_proc where proname like 't\\_%' order by 1`.execute(db)).rows.map((r) => [
      r.proname,
      r.oid,
    ]),
  );
const recorded = async (db: Db) => (await sql<{ name: string; hash: string }>`select name, hash from function_source order by name`.execute(db)).rows;

test("function sources are applied after the numbered migrations and recorded by hash; a second migration applies none of them again", async () => {
  const { db } = await freshDb();
  const first = await migrateToLatest(db, { functions: [answer(42), greeting] });
  expect(first.error).toBeUndefined();
  expect(first.results.at(-1)?.migrationName).toBe(Object.keys(MIGRATIONS).sort().at(-1));
  expect(first.functions).toEqual([
    { name: "t_answer", status: "Applied" },
    { name: "t_greeting", status: "Applied" },
  ]);
  expect((await sql<{ a: number; g: string }>`select t_answer() as a, t_greeting('you') as g`.execute(db)).rows).toEqual([{ a: 42, g: "hello you" }]);
  expect((await recorded(db)).map((r) => r.name)).toEqual(["t_answer", "t_greeting"]);
  const before = await oids(db);

  const again = await migrateToLatest(db, { functions: [answer(42), greeting] });
  expect(again).toEqual({
    results: [],
    functions: [
      { name: "t_answer", status: "Unchanged" },
      { name: "t_greeting", status: "Unchanged" },
    ],
  });
  // Not dropped and created again: the same catalog rows.
  expect(await oids(db)).toEqual(before);
});

test("a changed source is applied again, only it, even when its return type changes", async () => {
  const { db } = await freshDb();
  await migrateToLatest(db, { functions: [answer(1), greeting] });
  const before = await recorded(db);
  const changed = { name: "t_answer", sql: "create function t_answer() returns text language sql as $$ select 'forty-two' $$" };
  const r = await migrateToLatest(db, { functions: [changed, greeting] });
  expect(r.error).toBeUndefined();
  expect(r).toMatchObject({
    functions: [
      { name: "t_answer", status: "Applied" },
      { name: "t_greeting", status: "Unchanged" },
    ],
  });
  expect((await sql<{ a: string }>`select t_answer() as a`.execute(db)).rows).toEqual([{ a: "forty-two" }]);
  const after = await recorded(db);
  expect(after[0]!.hash).not.toBe(before[0]!.hash);
  expect(after[1]).toEqual(before[1]);
  // One function of that name: the old overload went with its old text.
  expect(Object.keys(await oids(db))).toEqual(["t_answer", "t_greeting"]);
});

test("a source that fails, or does not create its function, fails the migration and changes nothing", async () => {
  const { db } = await freshDb();
  await migrateToLatest(db, { functions: [answer(7)] });
  const before = { oids: await oids(db), recorded: await recorded(db) };
  const wrongName = { name: "t_answer", sql: "create function t_other() returns int language sql as $$ select 8 $$" };
  const bad = await migrateToLatest(db, { functions: [answer(9), wrongName] });
  expect(bad.error?.message).toMatch(/t_answer given twice/);
  const noFunction = await migrateToLatest(db, { functions: [wrongName] });
  expect(noFunction.error?.message).toBe("function source t_answer: its text does not create function t_answer");
  const broken = await migrateToLatest(db, { functions: [{ name: "t_answer", sql: "create function t_answer( returns" }] });
  expect(broken.error?.message).toMatch(/syntax error/);
  // The failed steps rolled back: the old function, its hash, and no t_other.
  expect({ oids: await oids(db), recorded: await recorded(db) }).toEqual(before);
  expect((await sql<{ a: number }>`select t_answer() as a`.execute(db)).rows).toEqual([{ a: 7 }]);
  expect((await migrateToLatest(db, { functions: [{ name: "T-Answer; drop table dag", sql: "select 1" }] })).error?.message).toMatch(/invalid function name/);
});

test("two migrators started at once on a new database: the lock makes one apply each source and the other find it applied", async () => {
  const { url, db } = await freshDb();
  const other = createDb(url, { max: 2, applicationName: "fnsrc-test-2" });
  extraPools.push(other);
  const [a, b] = await Promise.all([migrateToLatest(db, { functions: [answer(3), greeting] }), migrateToLatest(other, { functions: [answer(3), greeting] })]);
  expect(a.error).toBeUndefined();
  expect(b.error).toBeUndefined();
  // Each numbered migration ran once, and each source was applied by exactly one of them.
  const applied = (await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(db)).rows[0]!.n;
  expect(a.results.length + b.results.length).toBe(applied);
  for (const i of [0, 1]) expect([a.functions[i]!.status, b.functions[i]!.status].sort()).toEqual(["Applied", "Unchanged"]);
});

test("migrating to a numbered migration stops there and applies no source", async () => {
  const { db } = await freshDb();
  const r = await migrateToLatest(db, { through: "011-triggered-runs", functions: [answer(5)] });
  expect(r.error).toBeUndefined();
  expect(r.functions).toEqual([]);
  expect(r.results.map((m) => m.migrationName).at(-1)).toBe("011-triggered-runs");
  expect(await oids(db)).toEqual({});
  await expect(migrateToLatest(db, { through: "999-none" })).rejects.toThrow("no migration named 999-none");
});
