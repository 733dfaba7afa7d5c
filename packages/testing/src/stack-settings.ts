/** The settings that put a stack's processes on a test's own database, Redis prefix and DAG folder. */
export function stackSettings(tdb: { url: string }, redis: { url: string; prefix: string }, dagsDir: string): Record<string, string> {
  return { DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir };
}
