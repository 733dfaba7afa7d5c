// The Postgres failover drill shared by the HA test and `pnpm chaos --ha`: real services (scheduler,
// two workers) reach a pg_auto_failover formation (a primary and a synchronous standby) through
// libpq's multi-host URL; 100+ runs are in flight when the primary node is killed with -9; the
// monitor promotes the standby. Afterwards, from the promoted node: every run's end, and every try
// outcome the workers reported committed (their "try finished" log lines) is there.
import { createPool, type PgPool } from "@svc/db";
import { startRedisServer, waitFor } from "@svc/testing";
import { countRuns, installCommitAudit, type RunCounts } from "../../bench/chaos/checks";
import { startFaultStack } from "../security/fault-stack";
import { drillDag, keepLogs, serviceLines, taskStates } from "./drill-parts";
import { startPgAutoFailover } from "./pg-auto-failover";

export const PG_HA_DAG_ID = "ha_postgres";
const SERVICES = ["scheduler", "worker-1", "worker-2"];

export interface PostgresFailoverResult {
  runs: RunCounts;
  triggered: number;
  /** Runs unfinished at the kill. */
  inFlight: number;
  /** Milliseconds from kill -9 until the standby accepted writes. */
  promotionMs: number;
  /** Milliseconds from kill -9 until the first try outcome committed on the promoted node. */
  commitsBackMs: number;
  /** Seconds from the kill until every run had ended. */
  settledS: number;
  oldPrimaryPort: number;
  newPrimaryPort: number;
  /** Try outcomes the workers reported committed; of them, before the kill; and those not on the promoted node. */
  reportedCommits: number;
  reportedBeforeKill: number;
  missingCommits: string[];
  /** Services that exited on their own during the drill. */
  servicesDown: string[];
  /** The monitor's view after the drill, and the URL `pg_autoctl show uri` printed. */
  formationStates: string;
  shownUri: string;
  diagnosis?: { taskStates: Record<string, number>; services: Record<string, string[]> };
}

interface Reported {
  key: string;
  time: number;
}

/** Each "try finished" line of a worker's JSON log: the outcome its commit returned for. */
function reportedCommits(output: string): Reported[] {
  const out: Reported[] = [];
  for (const line of output.split("\n")) {
    if (!line.includes('"try finished"')) continue;
    try {
      const l = JSON.parse(line) as { runId: string; taskId: string; try: number; state: string; time: number };
      out.push({ key: `${l.runId}/${l.taskId}/${l.try}/${l.state}`, time: l.time });
    } catch {
      // a line cut by the end of the file
    }
  }
  return out;
}

async function auditedKeys(pool: PgPool): Promise<Set<string>> {
  const r = await pool.query<{ k: string }>("select run_id || '/' || task_id || '/' || try_number || '/' || state as k from chaos_commit where dag_id = $1", [PG_HA_DAG_ID]);
  return new Set(r.rows.map((x) => x.k));
}

/** `runs` triggered up front; the primary node is killed once about half of their tries have landed. */
export async function postgresFailoverDrill(o: { runs: number; label: string; say?: (s: string) => void }): Promise<PostgresFailoverResult> {
  const say = o.say ?? (() => undefined);
  const formation = await startPgAutoFailover({ dbname: `svc_${o.label}`, say });
  const redis = await startRedisServer().catch(async (e: unknown) => {
    await formation.stop();
    throw e;
  });
  const pool = createPool(formation.url, { max: 2, applicationName: "ha-checks" });
  const stack = await startFaultStack({
    label: o.label,
    databaseUrl: formation.url,
    redisUrl: redis.url,
    dags: { [PG_HA_DAG_ID]: drillDag(PG_HA_DAG_ID) },
    env: { SVC_WORKER_CONCURRENCY: "8", SVC_ZOMBIE_AFTER_MS: "4000", SVC_LOG_LEVEL: "info" },
  }).catch(async (e: unknown) => {
    await pool.end();
    await redis.stop();
    await formation.stop();
    throw e;
  });
  try {
    await installCommitAudit(pool);
    const procs = await Promise.all([stack.start("scheduler", "scheduler"), stack.start("worker-1", "worker"), stack.start("worker-2", "worker")]);
    say(`services up on ${formation.url.replace(/\?.*/, "")}`);

    const t0 = Date.now();
    for (let i = 0; i < o.runs; i++) await stack.api.triggerDagRun(PG_HA_DAG_ID, { runId: `pgha-${i}`, logicalDate: new Date(t0 + i) });
    say(`${o.runs} runs triggered`);
    await waitFor(
      async () => (await pool.query("select count(*)::int as n from task_instance where dag_id = $1 and state = 'success'", [PG_HA_DAG_ID])).rows[0].n >= (o.runs * 3) / 2,
      {
        timeoutMs: 180_000,
        intervalMs: 100,
        what: "half the tries landed",
      },
    );
    const inFlight = (await countRuns(pool, PG_HA_DAG_ID)).unfinishedRuns;
    const old = (await formation.writableNode())!;
    const killedAt = Date.now();
    await old.kill9();
    say(`primary ${old.name} (${old.port}) killed (-9) with ${inFlight} runs unfinished`);
    const promoted = await formation.waitForPromotion(old);
    const promotionMs = Date.now() - killedAt;
    say(`${promoted.name} (${promoted.port}) accepts writes ${promotionMs} ms after the kill`);

    await waitFor(
      async () => {
        const r = await countRuns(pool, PG_HA_DAG_ID);
        return r.runs >= o.runs && r.unfinishedRuns === 0 && r.stuckTasks === 0;
      },
      { timeoutMs: 300_000, intervalMs: 500, what: "every run ended" },
    ).catch(() => undefined);
    const settledS = (Date.now() - killedAt) / 1000;
    const runs = await countRuns(pool, PG_HA_DAG_ID);
    const firstAfter = await pool.query<{ ms: number | null }>(
      "select (extract(epoch from min(at)) * 1000)::float8 - $2 as ms from chaos_commit where dag_id = $1 and at > to_timestamp($2 / 1000.0)",
      [PG_HA_DAG_ID, killedAt],
    );
    const reported = ["worker-1", "worker-2"].flatMap((n) => reportedCommits(stack.output(n)));
    const audited = await auditedKeys(pool);
    const servicesDown = SERVICES.filter((_, i) => procs[i]!.pid() === undefined);
    const diagnosis =
      runs.unfinishedRuns > 0 || runs.stuckTasks > 0
        ? {
            taskStates: await taskStates(pool, PG_HA_DAG_ID),
            services: Object.fromEntries(SERVICES.map((n) => [n, serviceLines(stack.output(n))])),
          }
        : undefined;
    return {
      runs,
      triggered: o.runs,
      inFlight,
      promotionMs,
      commitsBackMs: firstAfter.rows[0]?.ms ?? -1,
      settledS,
      oldPrimaryPort: old.port,
      newPrimaryPort: promoted.port,
      reportedCommits: reported.length,
      reportedBeforeKill: reported.filter((r) => r.time < killedAt).length,
      missingCommits: reported.filter((r) => !audited.has(r.key)).map((r) => r.key),
      servicesDown,
      formationStates: await formation.states().catch((e: Error) => e.message),
      shownUri: formation.shownUri,
      diagnosis,
    };
  } finally {
    keepLogs((n) => stack.output(n), SERVICES, "pg-");
    await stack.stop();
    await pool.end();
    await redis.stop();
    await formation.stop();
  }
}
