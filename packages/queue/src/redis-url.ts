import type { RedisOptions } from "ioredis";

/**
 * Where Redis is: a plain `redis://` / `rediss://` URL, or the Sentinel form
 * `redis+sentinel://[[user]:password@]host:port[,host:port…]/<master-name>[/<db>][?sentinelPassword=…]`
 * (`rediss+sentinel://` for TLS to Redis and the sentinels). With Sentinel the client asks the
 * sentinels which server is the primary, and asks again on every reconnect, so a failover is
 * followed without a restart.
 */
export interface SentinelTarget {
  sentinels: { host: string; port: number }[];
  /** The master name the sentinels monitor (`sentinel monitor <name> …`). */
  name: string;
  db: number;
  username?: string;
  password?: string;
  sentinelPassword?: string;
  tls: boolean;
}

const SENTINEL_SCHEME = /^(rediss?)\+sentinel:\/\//i;

export const isSentinelUrl = (url: string): boolean => SENTINEL_SCHEME.test(url);

/** Parse the Sentinel form; throws on a malformed one (the message never carries the password). */
export function parseSentinelUrl(url: string): SentinelTarget {
  const scheme = SENTINEL_SCHEME.exec(url);
  if (!scheme) throw new Error("not a redis+sentinel:// URL");
  const rest = url.slice(scheme[0].length);
  const [beforeQuery = "", query = ""] = splitOnce(rest, "?");
  const at = beforeQuery.lastIndexOf("@", beforeQuery.indexOf("/") === -1 ? undefined : beforeQuery.indexOf("/"));
  const auth = at === -1 ? "" : beforeQuery.slice(0, at);
  const [hostList = "", path = ""] = splitOnce(at === -1 ? beforeQuery : beforeQuery.slice(at + 1), "/");
  const sentinels = hostList.split(",").map((h) => {
    const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(h.trim());
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535) throw new Error("redis+sentinel:// URL: each sentinel must be host:port");
    return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
  });
  const [name = "", dbText, extra] = path.split("/");
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new Error("redis+sentinel:// URL: the path must name the monitored master: /<name>[/<db>]");
  if (extra !== undefined || (dbText !== undefined && !/^\d{1,2}$/.test(dbText))) throw new Error("redis+sentinel:// URL: the database after the master name must be a number");
  const [user = "", pass] = auth ? splitOnce(auth, ":") : [];
  const params = new URLSearchParams(query);
  for (const k of params.keys()) if (k !== "sentinelPassword") throw new Error(`redis+sentinel:// URL: unknown parameter '${k}'`);
  return {
    sentinels,
    name,
    db: dbText === undefined ? 0 : Number(dbText),
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(pass ? { password: decodeURIComponent(pass) } : {}),
    ...(params.get("sentinelPassword") ? { sentinelPassword: params.get("sentinelPassword")! } : {}),
    tls: scheme[1]!.toLowerCase() === "rediss",
  };
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i === -1 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/**
 * After a failover the old primary, if it comes back, or a proxy still pointing at it, answers
 * writes with READONLY; a blocked read on a server turned replica ends with UNBLOCKED. Both mean
 * "you are talking to a replica": reconnect (Sentinel then names the new primary) and resend the
 * command. Resending is safe because a replica refused it before writing anything.
 */
export function reconnectOnReplicaError(err: Error): 2 | false {
  return /^(READONLY|UNBLOCKED)\b/.test(err.message) ? 2 : false;
}

/** Arguments for `new IORedis(...)`: the URL (plain form) or none (Sentinel form), and the options. */
export function ioredisArgs(url: string, opts: RedisOptions): [string, RedisOptions] | [RedisOptions] {
  const base: RedisOptions = { reconnectOnError: reconnectOnReplicaError, ...opts };
  if (!isSentinelUrl(url)) return [url, base];
  const t = parseSentinelUrl(url);
  return [
    {
      ...base,
      sentinels: t.sentinels,
      name: t.name,
      role: "master",
      db: t.db,
      username: t.username,
      password: t.password,
      sentinelPassword: t.sentinelPassword,
      // No failoverDetector: in ioredis 5 its disconnect can land while a reconnect is resolving the
      // primary, and that connection then ends for good ("Connection is closed." for ever after).
      // A killed primary closes the connection anyway, and a demoted one answers READONLY (above).
      sentinelRetryStrategy: (times: number) => Math.min(100 * times, 1000),
      ...(t.tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    },
  ];
}

/** The URL with its password replaced, for logs and error messages. */
export function redactRedisUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)([^@/]*)@/i, (_, s: string, auth: string) => `${s}${auth.includes(":") ? `${auth.split(":")[0]}:***` : "***"}@`);
}
