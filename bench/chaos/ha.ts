// `pnpm chaos --ha`: the control plane's high-availability drills on real processes on 127.0.0.1.
// Redis: a primary, a replica and three sentinels; 120 runs in flight through the real services;
// the primary killed with -9; a client triggering through the REST API meanwhile.
// Postgres: a pg_auto_failover formation (monitor, primary, synchronous standby) reached through
// libpq's multi-host URL; 120 runs in flight; the primary node killed with -9; the standby promoted;
// every try outcome a worker saw committed checked on the promoted node.
// Prints a table per drill and, last, one JSON line (runs, success, lost, stuck, double_commits,
// redis_failovers, postgres_failovers; runs and the rest summed over both drills).
import os from "node:os";
import { createTestDb } from "@svc/testing";
import { redisFailoverDrill, type RedisFailoverResult } from "../../test/ha/redis-failover";
import { postgresFailoverDrill, type PostgresFailoverResult } from "../../test/ha/postgres-failover";
import { findPgAutoctl, MissingPgAutoctl } from "../../test/ha/pg-auto-failover";
import { formatTable, jsonLine } from "../system/report";

const say = (s: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function redisDrill(runs: number): Promise<RedisFailoverResult> {
  const tdb = await createTestDb("chaosha");
  try {
    return await redisFailoverDrill({ databaseUrl: tdb.url, runs, label: "chaosha", say });
  } finally {
    await tdb.drop();
  }
}

function redisTable(runs: number, r: RedisFailoverResult): string {
  const byStatus = r.answers.reduce<Record<number, number>>((a, x) => ((a[x.status] = (a[x.status] ?? 0) + 1), a), {});
  const slowest = Math.max(0, ...r.answers.map((a) => a.seconds));
  return formatTable(`chaos --ha (Redis): ${runs} runs, Redis primary killed (-9) under load, ${os.cpus().length} cores`, [
    ["runs (triggered / in the database)", `${r.triggered} / ${r.runs.runs}`],
    ["success", r.runs.success],
    ["failed", r.runs.failed],
    ["runs lost", r.triggered - r.runs.runs],
    ["runs unfinished / task instances stuck", `${r.runs.unfinishedRuns} / ${r.runs.stuckTasks}`],
    ["tries committed twice", r.runs.doubleCommits],
    ["tries beyond the first (retries, zombies)", r.runs.extraTries],
    ["Redis: kill -9 to replica promoted", secs(r.promotionMs)],
    ["REST API: kill -9 to a trigger accepted again", secs(r.apiBackMs)],
    ["REST API answers during the failover", JSON.stringify(byStatus)],
    ["REST API slowest answer", `${slowest.toFixed(2)} s`],
    ["every run ended after the kill in", `${r.settledS.toFixed(1)} s`],
  ]);
}

function postgresTable(runs: number, p: PostgresFailoverResult): string {
  return formatTable(`chaos --ha (Postgres): ${runs} runs, pg_auto_failover primary node killed (-9) under load, ${os.cpus().length} cores`, [
    ["runs (triggered / in the database)", `${p.triggered} / ${p.runs.runs}`],
    ["runs unfinished at the kill", p.inFlight],
    ["success", p.runs.success],
    ["failed (without a reason)", `${p.runs.failed} (${p.runs.failedWithoutReason})`],
    ["runs lost", p.triggered - p.runs.runs],
    ["runs unfinished / task instances stuck", `${p.runs.unfinishedRuns} / ${p.runs.stuckTasks}`],
    ["tries committed twice", p.runs.doubleCommits],
    ["tries beyond the first (zombies re-run)", `${p.runs.extraTries} (${p.runs.zombieTries})`],
    ["outcomes workers saw committed (before the kill)", `${p.reportedCommits} (${p.reportedBeforeKill})`],
    ["of them missing on the promoted node", p.missingCommits.length],
    ["Postgres: kill -9 to standby accepting writes", secs(p.promotionMs)],
    ["Postgres: kill -9 to the first try committed again", secs(p.commitsBackMs)],
    ["every run ended after the kill in", `${p.settledS.toFixed(1)} s`],
    ["services that died", p.servicesDown.join(", ") || "none"],
  ]);
}

export async function runHaChaos(runs: number): Promise<number> {
  try {
    findPgAutoctl(); // before the Redis drill: a missing pg_autoctl is said at once, not after a 60 s wait
  } catch (e) {
    if (!(e instanceof MissingPgAutoctl)) throw e;
    process.stderr.write(`chaos --ha: ${e.message}\n`);
    return 2;
  }
  const r = await redisDrill(runs);
  console.log(redisTable(runs, r));
  const p = await postgresFailoverDrill({ runs, label: "chaoshapg", say });
  console.log(postgresTable(runs, p));
  const lost = r.triggered - r.runs.runs + (p.triggered - p.runs.runs);
  const stuck = r.runs.unfinishedRuns + r.runs.stuckTasks + p.runs.unfinishedRuns + p.runs.stuckTasks;
  const doubles = r.runs.doubleCommits + p.runs.doubleCommits;
  console.log(
    jsonLine({
      runs: r.runs.runs + p.runs.runs,
      success: r.runs.success + p.runs.success,
      lost,
      stuck,
      double_commits: doubles,
      redis_failovers: 1,
      postgres_failovers: p.newPrimaryPort !== p.oldPrimaryPort ? 1 : 0,
      failed_without_reason: p.runs.failedWithoutReason + r.runs.failedWithoutReason,
      missing_commits: p.missingCommits.length,
      redis_promotion_s: r.promotionMs / 1000,
      api_back_s: r.apiBackMs / 1000,
      postgres_promotion_s: p.promotionMs / 1000,
      postgres_commits_back_s: p.commitsBackMs / 1000,
    }),
  );
  const redisOk = r.runs.success === r.triggered;
  const pgOk = p.runs.success + p.runs.failed === p.triggered && p.runs.failedWithoutReason === 0 && p.missingCommits.length === 0 && p.newPrimaryPort !== p.oldPrimaryPort;
  return lost || stuck || doubles || !redisOk || !pgOk ? 1 : 0;
}
