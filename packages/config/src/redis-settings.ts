import { z } from "zod";

const SENTINEL_URL = /^rediss?\+sentinel:\/\/([^@/]*@)?[^/@?]+\/[A-Za-z0-9_.-]{1,64}(\/\d{1,2})?(\?.*)?$/i;
const HOST_PORT_LIST = /^\s*(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}(\s*,\s*(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5})*\s*$/;

/**
 * The variables that say where Redis is (merged into the config's schema). REDIS_URL is a plain
 * `redis://` URL or the Sentinel form `redis+sentinel://[:password@]host:port[,host:port]/<master>[/<db>]`;
 * or SVC_REDIS_SENTINELS (host:port,…) and SVC_REDIS_SENTINEL_NAME name the sentinels and the
 * monitored master, and REDIS_URL then only gives the password, database and TLS.
 */
export const REDIS_ENV = {
  REDIS_URL: z
    .string()
    .refine((v) => SENTINEL_URL.test(v) || (z.string().url().safeParse(v).success && /^rediss?:\/\//i.test(v)), {
      message: "a redis:// or rediss:// URL, or redis+sentinel://host:port[,host:port]/<master-name>[/<db>]",
    })
    .default("redis://127.0.0.1:6379"),
  SVC_REDIS_SENTINELS: z.string().regex(HOST_PORT_LIST, "a comma-separated list of host:port").optional(),
  SVC_REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "the master name the sentinels monitor")
    .optional(),
  SVC_REDIS_SENTINEL_PASSWORD: z.string().optional(),
};

type RedisEnv = z.infer<z.ZodObject<typeof REDIS_ENV>>;

/** The one Redis URL every service, the CLI and the workers use; `problems` when the variables contradict. */
export function redisUrlOf(e: RedisEnv): { url: string; problems: string[] } {
  const sentinelUrl = SENTINEL_URL.test(e.REDIS_URL);
  if (!e.SVC_REDIS_SENTINELS) {
    const problems = e.SVC_REDIS_SENTINEL_NAME ? ["SVC_REDIS_SENTINEL_NAME: set only together with SVC_REDIS_SENTINELS"] : [];
    if (e.SVC_REDIS_SENTINEL_PASSWORD && !sentinelUrl) problems.push("SVC_REDIS_SENTINEL_PASSWORD: set only when Redis is reached through Sentinel");
    return { url: withSentinelPassword(e.REDIS_URL, sentinelUrl ? e.SVC_REDIS_SENTINEL_PASSWORD : undefined), problems };
  }
  if (!e.SVC_REDIS_SENTINEL_NAME) return { url: e.REDIS_URL, problems: ["SVC_REDIS_SENTINEL_NAME: required with SVC_REDIS_SENTINELS (the master name the sentinels monitor)"] };
  if (sentinelUrl) return { url: e.REDIS_URL, problems: ["SVC_REDIS_SENTINELS: REDIS_URL already names sentinels; set one or the other"] };
  const u = new URL(e.REDIS_URL);
  const auth = u.username || u.password ? `${u.username}${u.password ? `:${u.password}` : ""}@` : "";
  const db = /^\/(\d{1,2})$/.exec(u.pathname)?.[1];
  const hosts = e.SVC_REDIS_SENTINELS.split(",")
    .map((h) => h.trim())
    .join(",");
  const scheme = u.protocol === "rediss:" ? "rediss+sentinel" : "redis+sentinel";
  return { url: withSentinelPassword(`${scheme}://${auth}${hosts}/${e.SVC_REDIS_SENTINEL_NAME}${db ? `/${db}` : ""}`, e.SVC_REDIS_SENTINEL_PASSWORD), problems: [] };
}

function withSentinelPassword(url: string, password: string | undefined): string {
  if (!password || /[?&]sentinelPassword=/.test(url)) return url;
  return `${url}${url.includes("?") ? "&" : "?"}sentinelPassword=${encodeURIComponent(password)}`;
}
