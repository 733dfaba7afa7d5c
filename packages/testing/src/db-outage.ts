import pg from "pg";

const ADMIN_URL = process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Cut a test database off and bring it back, as a database restart looks to its clients. */
export interface DbOutage {
  /** Refuse new connections to the database and end the open ones (clients see their connection terminated). */
  begin(): Promise<void>;
  /** Accept connections again. */
  end(): Promise<void>;
}

async function admin(fn: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await fn(c);
  } finally {
    await c.end();
  }
}

/** An outage of one database this test created (`TestDb.name`); the shared server stays up. */
export function dbOutage(name: string): DbOutage {
  if (!/^svc_test_[a-z0-9_]+$/.test(name)) throw new Error("dbOutage: only a database made by createTestDb");
  return {
    begin: () =>
      admin(async (c) => {
        await c.query(`alter database "${name}" allow_connections false`);
        await c.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [name]);
      }),
    end: () => admin((c) => c.query(`alter database "${name}" allow_connections true`)),
  };
}
