import { randomBytes } from "node:crypto";
import { createScratchDb, type ScratchDb } from "@svc/db/scratch";
import { migrateDatabase } from "@svc/engine-sql";

const ADMIN_URL = process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** An isolated database of one test file: its pool, URL (for child processes), name, and drop(). */
export type TestDb = ScratchDb;

/** A fresh, migrated database for one test file: `svc_test_<label>_<random>`. */
export async function createTestDb(label = "t"): Promise<TestDb> {
  const t = await createEmptyTestDb(label);
  const { error } = await migrateDatabase(t.db);
  if (error) throw error;
  return t;
}

/** A fresh database with no migration applied (for tests of the migrations themselves). */
export function createEmptyTestDb(label = "t"): Promise<TestDb> {
  const name = `svc_test_${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString("hex")}`;
  return createScratchDb(ADMIN_URL, name, { max: 5, applicationName: `test-${label}` });
}
