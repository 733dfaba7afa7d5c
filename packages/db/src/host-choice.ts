// Host choice for a multi-host DATABASE_URL, as libpq does it: try the hosts in order, each with its
// own connect timeout, and keep the first that answers (target_session_attrs=any) or the first whose
// sessions accept writes (read-write: `transaction_read_only` is off, so neither a hot standby nor a
// promoted node that pg_auto_failover still holds read-only). node-postgres connects to one host
// only, so each pooled connection first probes the hosts with short-lived clients, then connects to
// the chosen one and checks it again (it may have been demoted in between).
import pg from "pg";
import { describeHosts, type ParsedPgUrl, type PgHost } from "./multi-host";

/** SQLSTATE 25006 read_only_sql_transaction: the host was demoted under this connection. */
const READ_ONLY = "25006";

/** No host could be used; `tried` says what each host answered (never credentials). */
export class NoUsableHostError extends Error {
  readonly code = "PG_NO_USABLE_HOST";
  constructor(
    readonly target: string,
    readonly tried: string[],
  ) {
    super(`no ${target} Postgres host among ${tried.length}: ${tried.join("; ")}`);
  }
}

async function writable(c: pg.Client): Promise<boolean> {
  return (await c.query<{ ro: string }>("select current_setting('transaction_read_only') as ro")).rows[0]?.ro === "off";
}

/** Tries the hosts in order; resolves with the first usable one. */
export async function chooseHost(parsed: ParsedPgUrl, base: pg.ClientConfig, perHostMs: number): Promise<PgHost> {
  const tried: string[] = [];
  for (const h of parsed.hosts) {
    const probe = new pg.Client({ ...base, connectionString: parsed.urlFor(h), connectionTimeoutMillis: perHostMs, application_name: "svc-host-probe" });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      if (parsed.targetSessionAttrs === "any" || (await writable(probe))) return h;
      tried.push(`${describeHosts([h])} read-only`);
    } catch (e) {
      tried.push(`${describeHosts([h])} ${(e as { code?: string }).code ?? (e as Error).message}`);
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  throw new NoUsableHostError(parsed.targetSessionAttrs === "read-write" ? "writable" : "reachable", tried);
}

type Callback = (err: Error | null, ...rest: unknown[]) => void;

/**
 * A node-postgres Client class for pg.Pool's `Client` option: connects to the host chooseHost
 * picked, and ends itself when a statement finds the host read-only (demoted), so the pool drops it
 * on release instead of handing it out again.
 */
export function hostChoosingClient(parsed: ParsedPgUrl, perHostMs: number): typeof pg.Client {
  return class HostChoosingClient extends pg.Client {
    private readonly base: pg.ClientConfig;

    constructor(config: pg.ClientConfig) {
      super({ ...config, connectionString: parsed.urlFor(parsed.hosts[0]!) });
      this.base = config;
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
      const done = this.open().then(() => this as pg.Client);
      if (!callback) return done;
      const cb = callback as (err: Error | null, c?: pg.Client) => void;
      done.then(
        (c) => cb(null, c),
        (e: Error) => cb(e),
      );
    }

    private async open(): Promise<void> {
      const h = await chooseHost(parsed, this.base, perHostMs);
      if (this.connection.stream.destroyed) throw new Error("timeout exceeded when trying to connect");
      // node-postgres reads these when it opens the socket (and for TLS, the server name).
      this.host = h.host;
      this.port = h.port;
      const params = (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters;
      params.host = h.host;
      params.port = h.port;
      await super.connect();
      if (parsed.targetSessionAttrs === "read-write" && !(await writable(this))) {
        await this.end().catch(() => undefined);
        throw new NoUsableHostError("writable", [`${describeHosts([h])} became read-only while connecting`]);
      }
    }

    // Every query form the pool and Kysely use: promise, or callback as the last argument.
    override query(...args: unknown[]): never {
      const last = args[args.length - 1];
      if (typeof last === "function") {
        const cb = last as Callback;
        args[args.length - 1] = (err: Error | null, ...rest: unknown[]) => {
          this.dropIfDemoted(err);
          cb(err, ...rest);
        };
      }
      const r = (super.query as (...a: unknown[]) => unknown)(...args);
      if (r instanceof Promise)
        return r.catch((e: unknown) => {
          this.dropIfDemoted(e);
          throw e;
        }) as never;
      return r as never;
    }

    private dropIfDemoted(e: unknown): void {
      if ((e as { code?: string } | null)?.code === READ_ONLY) void this.end().catch(() => undefined);
    }
  };
}
