import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDb, type Db } from "@svc/db";
import { migrateDatabase } from "@svc/engine-sql";

const ADMIN_URL = process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDb {
  db: Db;
  /** Connection URL of the isolated database (for child processes). */
  url: string;
  name: string;
  /** Close the pool and drop the database this helper created (and only it). */
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file: `svc_test_<label>_<random>`. */
export async function createTestDb(label = "t"): Promise<TestDb> {
  const t = await createEmptyTestDb(label);
  const { error } = await migrateDatabase(t.db);
  if (error) throw error;
  return t;
}

/** A fresh database with no migration applied (for tests of the migrations themselves). */
export async function createEmptyTestDb(label = "t"): Promise<TestDb> {
  const name = `svc_test_${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = createDb(url, { max: 5, applicationName: `test-${label}` });
  return {
    db,
    url,
    name,
    async drop() {
      await db.destroy().catch(() => undefined);
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}
