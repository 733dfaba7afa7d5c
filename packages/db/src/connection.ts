import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema";
import { hostChoosingClient } from "./host-choice";
import { nameMarkedStatements } from "./named-statements";
import { DatabaseUrlError, parsePgUrl, type ParsedPgUrl } from "./multi-host";
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
