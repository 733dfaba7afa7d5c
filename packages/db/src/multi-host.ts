// libpq's multi-host connection URL, which node-postgres does not understand
// (brianc/node-postgres#1470): postgres://user@h1:p1,h2:p2/db?target_session_attrs=read-write.
// It is split here into one single-host URL per host, each of which node-postgres parses itself.

export interface PgHost {
  host: string;
  port: number;
}

/** What libpq's target_session_attrs values we honour: any host, or the first that accepts writes. */
export type TargetSessionAttrs = "any" | "read-write";

export interface ParsedPgUrl {
  /** The hosts in the order given (libpq tries them in that order). */
  hosts: PgHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /** libpq's connect_timeout (seconds in the URL), per host; undefined when not given. */
  connectTimeoutMs?: number;
  /** True when the URL needs host choice: several hosts, or a target_session_attrs to check. */
  multiHost: boolean;
  /** The URL with only this host, the libpq-only parameters removed, for node-postgres. */
  urlFor(h: PgHost): string;
}

/** A DATABASE_URL that cannot be used; the message never repeats the URL (it may hold a password). */
export class DatabaseUrlError extends Error {
  readonly code = "DATABASE_URL_INVALID";
  constructor(reason: string) {
    super(`DATABASE_URL: ${reason}`);
  }
}

const SCHEME = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s;
const DEFAULT_PORT = 5432;
// Parameters libpq knows and node-postgres would pass on to the server as unknown settings.
const LIBPQ_ONLY = ["target_session_attrs", "connect_timeout"];

function parseHost(item: string): PgHost {
  // [v6]:port, [v6], host:port, host
  const m = /^\[([^\]]+)\](?::(.*))?$/.exec(item) ?? /^([^:[\]]+)(?::(.*))?$/.exec(item);
  if (!m || !m[1]) throw new DatabaseUrlError(`cannot read the host '${item}' (expected host, host:port or [ipv6]:port)`);
  const port = m[2] === undefined || m[2] === "" ? DEFAULT_PORT : Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new DatabaseUrlError(`the port of host '${m[1]}' is not a port number: '${m[2]}'`);
  return { host: decodeURIComponent(m[1]), port };
}

/**
 * Parse a postgres:// URL with one or several comma-separated hosts (libpq's form). Throws a
 * DatabaseUrlError naming what is wrong.
 */
export function parsePgUrl(url: string): ParsedPgUrl {
  const m = SCHEME.exec(url);
  if (!m) throw new DatabaseUrlError("must start with postgres:// or postgresql://");
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
  const at = authority.lastIndexOf("@");
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : "";
  const hostList = at >= 0 ? authority.slice(at + 1) : authority;
  const items = hostList === "" ? [] : hostList.split(",");
  if (items.some((i) => i === "")) throw new DatabaseUrlError("empty host in the host list (hosts are separated by single commas)");
  const hosts = items.map(parseHost);

  const q = rest.indexOf("?");
  const pathPart = q >= 0 ? rest.slice(0, q) : rest;
  const params = new URLSearchParams(q >= 0 ? rest.slice(q + 1).replace(/#.*$/s, "") : "");
  const tsa = params.get("target_session_attrs") ?? "any";
  if (tsa !== "any" && tsa !== "read-write") throw new DatabaseUrlError(`target_session_attrs=${tsa} is not supported (use read-write to reach the primary, or any)`);
  const ct = params.get("connect_timeout");
  let connectTimeoutMs: number | undefined;
  if (ct !== null) {
    const s = Number(ct);
    if (!Number.isFinite(s) || s < 0) throw new DatabaseUrlError(`connect_timeout must be a number of seconds, not '${ct}'`);
    // libpq: 0 means wait forever, and less than 2 s counts as 2 s.
    connectTimeoutMs = s === 0 ? undefined : Math.max(2, Math.floor(s)) * 1000;
  }
  if (tsa !== "any" && !hosts.length) throw new DatabaseUrlError("target_session_attrs needs at least one host:port in the URL");
  for (const k of LIBPQ_ONLY) params.delete(k);
  const query = params.toString();

  return {
    hosts,
    targetSessionAttrs: tsa,
    connectTimeoutMs,
    multiHost: hosts.length > 1 || tsa !== "any",
    urlFor(h) {
      const host = h.host.includes(":") ? `[${h.host}]` : encodeURIComponent(h.host);
      return `${scheme}${userinfo}${host}:${h.port}${pathPart}${query ? `?${query}` : ""}`;
    },
  };
}

/** host:port list of a URL, for messages (never the credentials). */
export function describeHosts(hosts: PgHost[]): string {
  return hosts.map((h) => `${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}`).join(",");
}
