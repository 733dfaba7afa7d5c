import { sql } from "kysely";
import { createClient } from "@svc/db";
import { silentLogger } from "@svc/logger";
import { freePort, startTcpHold } from "@svc/testing";
import { bootDatabase } from "../src";

// A service started while Postgres is away (restarting, or not yet up in compose) waits for it
// instead of exiting; a Postgres that answers "no" is not waited for.
const ADMIN = new URL(process.env.SVC_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
const PG = { host: ADMIN.hostname, port: Number(ADMIN.port || 5432) };
/** The test's database on the real Postgres, reached through `port`, as `user` (default: the admin URL's). */
const urlVia = (port: number, user = ADMIN.username) => {
  const u = new URL(ADMIN.href);
  u.hostname = "127.0.0.1";
  u.port = String(port);
  u.username = user;
  u.pathname = `/${DB_NAME}`;
  return u.href;
};
const DB_NAME = `svc_bootwait_${process.pid}`;

afterAll(async () => {
  const admin = createClient(ADMIN.href);
  await admin.connect();
  await admin.query(`drop database if exists "${DB_NAME}" with (force)`);
  await admin.end();
});

test("a service started before Postgres listens waits for it, logging the wait, then creates and migrates its database", async () => {
  const port = await freePort();
  const logger = silentLogger();
  const warn = jest.spyOn(logger, "warn");
  const booting = bootDatabase(urlVia(port), logger, "boot-wait-test", 30_000);
  // Postgres "comes up" once the service has found it away at least once.
  while (!warn.mock.calls.length) await new Promise((r) => setTimeout(r, 50));
  // A TCP forward to the real Postgres, started only now.
  const forward = await startTcpHold(PG.port, { port, targetHost: PG.host });
  const db = await booting;
  try {
    expect(warn.mock.calls[0]![1]).toBe("Postgres is not reachable yet; waiting");
    const r = await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(db);
    expect(Number(r.rows[0]!.n)).toBeGreaterThan(0);
  } finally {
    await db.destroy();
    await forward.close();
  }
}, 60_000);

test("an answer from Postgres (an unknown role) fails the start at once, without waiting", async () => {
  const logger = silentLogger();
  const warn = jest.spyOn(logger, "warn");
  await expect(bootDatabase(urlVia(PG.port, "no_such_role_svc"), logger, "boot-wait-test", 30_000)).rejects.toThrow(/no_such_role_svc/);
  expect(warn).not.toHaveBeenCalled();
});

test("a Postgres that stays away past the wait fails the start with the connection error, after saying it waited", async () => {
  const port = await freePort();
  const logger = silentLogger();
  const warn = jest.spyOn(logger, "warn");
  await expect(bootDatabase(urlVia(port), logger, "boot-wait-test", 1_200)).rejects.toMatchObject({ code: "ECONNREFUSED" });
  expect(warn.mock.calls.length).toBeGreaterThanOrEqual(1);
}, 30_000);
