import { randomBytes } from "node:crypto";
import { sql, CompiledQuery, type Kysely } from "kysely";
import { MAX_NAMED_TEXTS, prepared, runPrepared } from "./named-statements";
import { createScratchDb, type ScratchDb } from "./scratch-db";

const ADMIN_URL = process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

type AnyDb = Kysely<any>;
let scratch: ScratchDb;
let db: AnyDb;

/** The statements prepared on the pool's one connection, with how often each ran. */
async function preparedHere(): Promise<{ statement: string; runs: number }[]> {
  const { rows } = await sql<{
    statement: string;
    runs: number;
  }>`select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements order by statement`.execute(db);
  return rows;
}

beforeAll(async () => {
  // One connection: every statement, and pg_prepared_statements, are of the same session.
  scratch = await createScratchDb(ADMIN_URL, `svc_test_named_${randomBytes(4).toString("hex")}`, { max: 1, applicationName: "svc-named-test" });
  db = scratch.db;
  await sql`create table item (id int primary key, name text)`.execute(db);
  await sql`insert into item values (1, 'one'), (2, 'two')`.execute(db);
});

afterAll(() => scratch.drop());

test("a marked statement is prepared once on a connection and run from there; unmarked ones are not prepared", async () => {
  for (const id of [1, 2, 1]) {
    const rows = await runPrepared(db, db.selectFrom("item").select(["id", "name"]).where("id", "=", id));
    expect(rows).toEqual([{ id, name: id === 1 ? "one" : "two" }]);
  }
  await db.selectFrom("item").select("name").where("id", "=", 2).execute();
  const here = await preparedHere();
  expect(here).toHaveLength(1);
  expect(here[0]!.statement).toContain('select "id", "name" from "item" where "id" = $1');
  expect(here[0]!.runs).toBe(3);
});

test("a marked select * still answers after its table gained a column (prepared again, the new column included)", async () => {
  const text = prepared("select * from item where id = $1");
  const first = await db.executeQuery(CompiledQuery.raw(text, [1]));
  expect(first.rows).toEqual([{ id: 1, name: "one" }]);
  await sql`alter table item add column size int default 7`.execute(db);
  const after = await db.executeQuery(CompiledQuery.raw(text, [1]));
  expect(after.rows).toEqual([{ id: 1, name: "one", size: 7 }]);
  const again = await db.executeQuery(CompiledQuery.raw(text, [2]));
  expect(again.rows).toEqual([{ id: 2, name: "two", size: 7 }]);
});

test("inside a transaction a statement gone stale fails as Postgres says (no retry in an aborted transaction), and the connection serves the next one", async () => {
  const text = prepared("select * from item where id = $1 and $2::int = $2::int");
  await db.executeQuery(CompiledQuery.raw(text, [1, 0]));
  await sql`alter table item add column colour text default 'red'`.execute(db);
  const failed = await db
    .transaction()
    .execute(async (trx) => trx.executeQuery(CompiledQuery.raw(text, [1, 0])))
    .then(
      () => "answered",
      (e: Error) => e.message,
    );
  expect(failed).toMatch(/cached plan must not change result type/);
  const next = await db.executeQuery(CompiledQuery.raw(text, [2, 0]));
  expect(next.rows).toEqual([{ id: 2, name: "two", size: 7, colour: "red" }]);
});

test("a process names at most MAX_NAMED_TEXTS distinct texts: a marked text that carries its values inline does not grow the connection's statements without end", async () => {
  for (let i = 0; i < MAX_NAMED_TEXTS + 20; i++) {
    const { rows } = await db.executeQuery<{ n: number }>(CompiledQuery.raw(prepared(`select ${i} + $1::int as n`), [1]));
    expect(rows[0]!.n).toBe(i + 1);
  }
  expect((await preparedHere()).length).toBeLessThanOrEqual(MAX_NAMED_TEXTS);
  const { rows } = await db.executeQuery<{ n: number }>(CompiledQuery.raw(prepared("select 0 + $1::int as n"), [1]));
  expect(rows[0]!.n).toBe(1);
});
