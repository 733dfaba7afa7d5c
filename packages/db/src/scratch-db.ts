import pg from "pg";
import { createDb, type Db } from "./connection";

/** A database made beside the one an admin URL names, for one test file; only it is dropped. */
export interface ScratchDb {
  db: Db;
  /** Its connection URL (the admin URL with this database's name), for child processes and further pools. */
  url: string;
  name: string;
  /** Close the pool and drop this database (with force: other sessions on it are ended). */
  drop(): Promise<void>;
}

async function asAdmin(adminUrl: string, text: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** Create the empty database `name` (letters, digits, `_`) on the server of `adminUrl` and open a pool on it. */
export async function createScratchDb(adminUrl: string, name: string, pool: { max: number; applicationName: string }): Promise<ScratchDb> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a scratch database name: ${name}`);
  await asAdmin(adminUrl, `create database "${name}"`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = createDb(url, pool);
  return {
    db,
    url,
    name,
    async drop() {
      await db.destroy().catch(() => undefined);
      await asAdmin(adminUrl, `drop database if exists "${name}" with (force)`);
    },
  };
}
