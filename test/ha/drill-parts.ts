// What the Redis and Postgres failover drills share: their DAG, and how a drill that left runs
// unfinished explains itself (task states, each service's last warnings and any crash) and keeps
// the services' logs (SVC_HA_KEEP_LOGS=<dir>).
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { PgPool } from "@svc/db";

/** A no-op start, a 1 s sleep that may retry, a no-op end: three tries per run. */
export const drillDag = (dagId: string) => `dag_id: ${dagId}
max_active_runs: 1000
tasks:
  - {task_id: start, operator: noop}
  - {task_id: work, operator: sleep, args: {seconds: 1}, depends_on: [start], retries: 2, retry_delay: 1s}
  - {task_id: end, operator: noop, depends_on: [work]}
`;

/** A service's last lines at warn level or above (pino levels 40+), then the lines it wrote outside its log (a crash's stack trace), without client debug output. */
export function serviceLines(output: string): string[] {
  const lines = output.split("\n");
  return [...lines.filter((l) => /"level":(4|5|6)0/.test(l)).slice(-25), ...lines.filter((l) => l.trim() && !l.startsWith("{") && !/ ioredis:/.test(l)).slice(-15)];
}

/** Task instances of the DAG counted by task and state ("work:queued": 3). */
export async function taskStates(pool: PgPool, dagId: string): Promise<Record<string, number>> {
  const r = await pool.query<{ k: string; n: number }>(
    "select task_id || ':' || coalesce(state, 'none') as k, count(*)::int as n from task_instance where dag_id = $1 group by 1",
    [dagId],
  );
  return Object.fromEntries(r.rows.map((x) => [x.k, x.n]));
}

/** Writes each service's output to `<SVC_HA_KEEP_LOGS>/<prefix><name>.log` when that variable is set. */
export function keepLogs(output: (name: string) => string, names: string[], prefix = ""): void {
  const dir = process.env.SVC_HA_KEEP_LOGS;
  if (dir) for (const n of names) writeFileSync(path.join(dir, `${prefix}${n}.log`), output(n));
}
