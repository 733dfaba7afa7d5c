import { Kysely, PostgresDialect, type Migration } from "kysely";
import pg from "pg";
import type { Database } from "./schema";
import { hostChoosingClient } from "./host-choice";
import { nameMarkedStatements } from "./named-statements";
import { DatabaseUrlError, parsePgUrl, type ParsedPgUrl } from "./multi-host";
import * as m001 from "./migrations/001-engine";
import * as m002 from "./migrations/002-platform";
import * as m003 from "./migrations/003-flow-details";
import * as m004 from "./migrations/004-hot-path";
import * as m005 from "./migrations/005-set-based-try-ops";
import * as m006 from "./migrations/006-hot-task-updates";
import * as m007 from "./migrations/007-one-trip-decisions";
import * as m008 from "./migrations/008-lean-try-ops";
import * as m009 from "./migrations/009-idempotency-keys";
import * as m010 from "./migrations/010-paused-runs";
import * as m011 from "./migrations/011-triggered-runs";
import * as m012 from "./migrations/012-hosts";
import * as m013 from "./migrations/013-task-hosts";
import * as m014 from "./migrations/014-flow-placement";
import * as m015 from "./migrations/015-hops-in-try-ops";
import * as m016 from "./migrations/016-started-runs-read";
import * as m017 from "./migrations/017-closed-run-reads";
import * as m018 from "./migrations/018-kept-hops-claimed";
import * as m019 from "./migrations/019-dag-change-notify";
import * as m020 from "./migrations/020-run-roles-flow-owners";
import * as m022 from "./migrations/022-cloud-hosts";
import * as m023 from "./migrations/023-gcp-azure-hosts";

// Return int8 (bigserial ids, counts) as numbers: our ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export type Db = Kysely<Database>;
export type PgPool = pg.Pool;

export interface DbOptions {
  /** Pool size; services use the default, tests and CLIs use small pools. */
  max?: number;
  applicationName?: string;
  /** Give up connecting after this long (default 5000 ms): an outage answers 503, not a hang. */
  connectTimeoutMs?: number;
  /** Server-side limit per statement (default 60000 ms; 0 = none, for migrations and long jobs). */
  statementTimeoutMs?: number;
}

/** The parsed URL when it needs host choice (several hosts or target_session_attrs), else undefined. */
function multiHostOf(url: string): ParsedPgUrl | undefined {
  // The common single-host URL goes straight to node-postgres, unparsed here.
  if (!url.includes(",") && !url.includes("target_session_attrs")) return undefined;
  const parsed = parsePgUrl(url);
  return parsed.multiHost ? parsed : undefined;
}

/** Connect budget per host of a multi-host URL: the URL's connect_timeout, else a share of the total. */
const perHostMs = (p: ParsedPgUrl, totalMs: number) => p.connectTimeoutMs ?? Math.max(1000, Math.floor(totalMs / p.hosts.length));

/**
 * A pg pool on the metadata database (for prepared hot-path statements; most code uses createDb).
 * A libpq multi-host URL (`postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`) makes
 * each new connection choose its host (host-choice.ts); a single-host URL goes to node-postgres as is.
 */
export function createPool(url: string, opts: DbOptions = {}): pg.Pool {
  const statement = opts.statementTimeoutMs ?? 60_000;
  const connectMs = opts.connectTimeoutMs ?? 5000;
  const multi = multiHostOf(url);
  const pool = new pg.Pool({
    ...(multi
      ? { Client: hostChoosingClient(multi, perHostMs(multi, connectMs)), connectionTimeoutMillis: perHostMs(multi, connectMs) * multi.hosts.length + 1000, keepAlive: true }
      : { connectionString: url, connectionTimeoutMillis: connectMs }),
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? "svc",
    ...(statement > 0 ? { statement_timeout: statement, idle_in_transaction_session_timeout: statement } : {}),
  });
  // A connection error (server restart, failover) must not crash the process. The pool handles
  // it for idle clients only: a checked-out client (a transaction between two statements) emits
  // 'error' with no listener, an uncaught exception. Every client gets its own listener; the
  // failed statement rejects, and the pool drops the broken client on release.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    nameMarkedStatements(client);
  });
  return pool;
}

/** One unpooled client (a dedicated session, e.g. for an advisory lock), with the same host choice as createPool. */
export function createClient(url: string, opts: Pick<DbOptions, "applicationName" | "connectTimeoutMs"> = {}): pg.Client {
  const connectMs = opts.connectTimeoutMs ?? 5000;
  const multi = multiHostOf(url);
  const config = { application_name: opts.applicationName ?? "svc" };
  if (!multi) return new pg.Client({ ...config, connectionString: url, connectionTimeoutMillis: connectMs });
  const C = hostChoosingClient(multi, perHostMs(multi, connectMs));
  return new C({ ...config, keepAlive: true });
}

/** Open a pooled Kysely connection to the metadata database. */
export function createDb(url: string, opts: DbOptions = {}): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(url, opts) }) });
}

/** The numbered migrations by name (applied in name order by migrate.ts). */
export const MIGRATIONS: Record<string, Migration> = {
  "001-engine": m001,
  "002-platform": m002,
  "003-flow-details": m003,
  "004-hot-path": m004,
  "005-set-based-try-ops": m005,
  "006-hot-task-updates": m006,
  "007-one-trip-decisions": m007,
  "008-lean-try-ops": m008,
  "009-idempotency-keys": m009,
  "010-paused-runs": m010,
  "011-triggered-runs": m011,
  "012-hosts": m012,
  "013-task-hosts": m013,
  "014-flow-placement": m014,
  "015-hops-in-try-ops": m015,
  "016-started-runs-read": m016,
  "017-closed-run-reads": m017,
  "018-kept-hops-claimed": m018,
  "019-dag-change-notify": m019,
  "020-run-roles-flow-owners": m020,
  "022-cloud-hosts": m022,
  "023-gcp-azure-hosts": m023,
};

/** Create the database named in `url` when it does not exist (connects to the `postgres` database; on a multi-host URL, of the host chosen). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const m = /^([^?#]*\/)([^/?#]*)([?#].*)?$/s.exec(url.replace(/^postgres(ql)?:\/\/[^/?#]*/, ""));
  const name = decodeURIComponent(m?.[2] ?? "");
  if (!/^[A-Za-z_][A-Za-z0-9_-]{0,62}$/.test(name)) throw new DatabaseUrlError("invalid database name");
  const head = /^postgres(ql)?:\/\/[^/?#]*/.exec(url)?.[0];
  if (!head) throw new DatabaseUrlError("must start with postgres:// or postgresql://");
  const client = createClient(`${head}/postgres${m?.[3] ?? ""}`);
  await client.connect();
  try {
    const r = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (r.rowCount) return false;
    await client.query(`create database "${name}"`).catch((e: { code?: string }) => {
      if (e.code !== "42P04") throw e; // created concurrently by another process
    });
    return true;
  } finally {
    await client.end();
  }
}
