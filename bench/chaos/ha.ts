// `pnpm chaos --ha`: the control plane's high-availability drill on real processes on 127.0.0.1.
// Redis: a primary, a replica and three sentinels; 120 runs in flight through the real services;
// the primary killed with -9; a client triggering through the REST API meanwhile. Prints a table
// and, last, one JSON line (runs, success, lost, stuck, double_commits, redis_failovers,
// postgres_failovers). Postgres failover is not part of this drill yet (postgres_failovers: 0).
import os from "node:os";
import { createTestDb } from "@svc/testing";
import { redisFailoverDrill } from "../../test/ha/redis-failover";
import { formatTable, jsonLine } from "../system/report";

const say = (s: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);

export async function runHaChaos(runs: number): Promise<number> {
  const tdb = await createTestDb("chaosha");
  try {
    const r = await redisFailoverDrill({ databaseUrl: tdb.url, runs, label: "chaosha", say });
    const lost = r.triggered - r.runs.runs;
    const stuck = r.runs.unfinishedRuns + r.runs.stuckTasks;
    const byStatus = r.answers.reduce<Record<number, number>>((a, x) => ((a[x.status] = (a[x.status] ?? 0) + 1), a), {});
    const slowest = Math.max(0, ...r.answers.map((a) => a.seconds));
    console.log(
      formatTable(`chaos --ha: ${runs} runs, Redis primary killed (-9) under load, ${os.cpus().length} cores`, [
        ["runs (triggered / in the database)", `${r.triggered} / ${r.runs.runs}`],
        ["success", r.runs.success],
        ["failed", r.runs.failed],
        ["runs lost", lost],
        ["runs unfinished / task instances stuck", `${r.runs.unfinishedRuns} / ${r.runs.stuckTasks}`],
        ["tries committed twice", r.runs.doubleCommits],
        ["tries beyond the first (retries, zombies)", r.runs.extraTries],
        ["Redis: kill -9 to replica promoted", `${(r.promotionMs / 1000).toFixed(1)} s`],
        ["REST API: kill -9 to a trigger accepted again", `${(r.apiBackMs / 1000).toFixed(1)} s`],
        ["REST API answers during the failover", JSON.stringify(byStatus)],
        ["REST API slowest answer", `${slowest.toFixed(2)} s`],
        ["every run ended after the kill in", `${r.settledS.toFixed(1)} s`],
        ["Postgres failover", "not in this drill"],
      ]),
    );
    console.log(
      jsonLine({
        runs: r.runs.runs,
        success: r.runs.success,
        lost,
        stuck,
        double_commits: r.runs.doubleCommits,
        redis_failovers: 1,
        postgres_failovers: 0,
        redis_promotion_s: r.promotionMs / 1000,
        api_back_s: r.apiBackMs / 1000,
      }),
    );
    return lost || stuck || r.runs.doubleCommits || r.runs.success !== r.triggered ? 1 : 0;
  } finally {
    await tdb.drop();
  }
}
