// Round trips per dependency hop: Postgres statements (pg client queries) and Redis commands
// (ioredis, by name) that the engine sends, counted in this process, which runs a scheduler and a
// worker (4 slots). Chains of 40 and of 2 no-op tasks run one after another; the difference per
// extra hop is what one hop costs (a run's trigger, start and end cancel out), and the times of the
// 40-task runs' other parts: trigger to the first task's start, last task's end to the run's end. Then runs of a
// 202-task fan-out/fan-in (start → 200 → end) and of 10
// independent no-op tasks (the system benchmark's run), per run, its trigger included.
// With --claimed every task is `sleep 0` (claimed and committed, as any operator that runs) instead of
// a no-op (instant: a worker runs a downstream no-op itself).
// Usage: pnpm exec tsx bench/hop-count.ts [--runs 5] [--claimed]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { loadConfig } from "@svc/config";
import { createPool } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createTestDb, createTestRedis, stackSettings, waitFor } from "@svc/testing";
import { percentile } from "./stats";
import { cpuUse } from "./system/cpu-use";
import { benchArgs } from "./lib/args";
import { runMain } from "./lib/run-main";

const values = benchArgs(
  "hop-count",
  "Usage: pnpm exec tsx bench/hop-count.ts [--runs 5] [--claimed]\nRound trips per dependency hop, and per run of a fan-out/fan-in and of 10 independent tasks (no-op, or with --claimed sleep 0).",
  { runs: { type: "string", default: "5" }, claimed: { type: "boolean" } },
);
const RUNS = Number(values.runs);
const OP = values.claimed ? "sleep, args: {seconds: 0}" : "noop";

// Counters, on while `counting`. Each pg Client.query is one round trip (extended protocol, one Sync).
let counting = false;
const pgCount = { n: 0 };
/** The bench's own connection (it polls for the runs' ends): not counted. */
const benchClients = new WeakSet<object>();
const redisCount = new Map<string, number>();
// The bench's own pool (it polls for the runs' ends) gives the pg Client class every pool uses.
const poll = createPool(process.env.DATABASE_URL ?? "postgres://127.0.0.1/postgres", { max: 1 });
const clientProto = (poll as unknown as { Client: { prototype: { query: (...a: unknown[]) => unknown } } }).Client.prototype;
const origQuery = clientProto.query;
clientProto.query = function (this: unknown, ...a: unknown[]) {
  if (counting && !benchClients.has(this as object)) pgCount.n++;
  return origQuery.apply(this, a);
};
const proto = Redis.prototype as unknown as { sendCommand: (cmd: { name: string }, ...rest: unknown[]) => unknown };
const origSend = proto.sendCommand;
proto.sendCommand = function (this: unknown, cmd: { name: string }, ...rest: unknown[]) {
  if (counting) redisCount.set(cmd.name, (redisCount.get(cmd.name) ?? 0) + 1);
  return origSend.call(this, cmd, ...rest);
};

async function main(): Promise<void> {
  const tdb = await createTestDb("hopcount");
  const redis = createTestRedis("hopcount");
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-hop-"));
  const chain = (n: number) =>
    `dag_id: chain${n}\ntasks:\n${Array.from({ length: n }, (_, i) => `  - {task_id: t${i}, operator: ${OP}${i ? `, depends_on: [t${i - 1}]` : ""}}`).join("\n")}\n`;
  writeFileSync(path.join(dagsDir, "c40.yaml"), chain(40));
  writeFileSync(path.join(dagsDir, "c2.yaml"), chain(2));
  // The system benchmark's fan-out/fan-in: start → 200 → end.
  const mids = Array.from({ length: 200 }, (_, i) => `m${i}`);
  writeFileSync(
    path.join(dagsDir, "f202.yaml"),
    `dag_id: fan202\ntasks:\n  - {task_id: start, operator: ${OP}}\n${mids.map((m) => `  - {task_id: ${m}, operator: ${OP}, depends_on: [start]}`).join("\n")}\n  - {task_id: end, operator: ${OP}, depends_on: [${mids.join(", ")}]}\n`,
  );
  // The system benchmark's run: 10 independent no-op tasks.
  writeFileSync(path.join(dagsDir, "w10.yaml"), `dag_id: wide10\ntasks:\n${Array.from({ length: 10 }, (_, i) => `  - {task_id: t${i}, operator: ${OP}}`).join("\n")}\n`);
  // Slow background timers: the counts are the hops', not the heartbeats' or reconciliation's.
  const config = loadConfig({
    ...stackSettings(tdb, redis, dagsDir),
    SVC_LOG_LEVEL: "silent",
    SVC_ZOMBIE_AFTER_MS: "60000",
    SVC_WORKER_HEARTBEAT_MS: "30000",
    SVC_RECONCILE_INTERVAL_MS: "600000",
  });
  const queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const catalog = defaultOperators();
  const api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  await syncDagFolder({ db: tdb.db, dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  for (const d of ["chain40", "chain2", "wide10", "fan202"]) await api.setPaused(d, false);
  const sched = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), worker: false });
  const worker = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), scheduler: false });
  await waitFor(() => sched.scheduler!.isLeader(), { what: "scheduler leadership" });
  await sched.scheduler!.ready();
  const benchPool = createPool(tdb.url, { max: 1 });
  benchPool.on("connect", (c) => benchClients.add(c));
  const done = (dagId: string, runId: string) =>
    waitFor(
      async () => {
        const { rows } = await benchPool.query<{ state: string; end_date: Date | null }>("select state, end_date from dag_run where dag_id = $1 and run_id = $2", [dagId, runId]);
        const r = rows[0];
        return r && (r.state === "success" || r.state === "failed") ? { end: new Date(r.end_date!).getTime() } : undefined;
      },
      { timeoutMs: 120000, intervalMs: 20 },
    );
  const hops: number[] = [];
  // Besides the hops: trigger → first task's start, and last task's end → the run's end.
  const starts: number[] = [];
  const ends: number[] = [];
  const measure = async (dagId: string, label: string) => {
    const pg0 = pgCount.n;
    const r0 = new Map(redisCount);
    for (let i = 0; i < RUNS; i++) {
      const t0 = Date.now();
      const run = await api.triggerDagRun(dagId, { runId: `${label}-${i}` });
      const ended = await done(dagId, run.dag_run_id);
      if (dagId === "chain40" && label === "m") {
        const tis = await tdb.db
          .selectFrom("task_instance")
          .select(["task_id", "start_date", "end_date"])
          .where("dag_id", "=", dagId)
          .where("run_id", "=", run.dag_run_id)
          .execute();
        const by = new Map(tis.map((t) => [t.task_id, t]));
        for (let k = 1; k < 40; k++) hops.push(new Date(by.get(`t${k}`)!.start_date!).getTime() - new Date(by.get(`t${k - 1}`)!.end_date!).getTime());
        starts.push(new Date(by.get("t0")!.start_date!).getTime() - t0);
        ends.push(ended.end - new Date(by.get("t39")!.end_date!).getTime());
      }
    }
    const redisBy = new Map<string, number>();
    for (const [k, v] of redisCount) if (v - (r0.get(k) ?? 0)) redisBy.set(k, v - (r0.get(k) ?? 0));
    return { pg: pgCount.n - pg0, redisBy };
  };
  await measure("chain40", "warm"); // definitions cached, connections open
  await measure("chain2", "warm");
  await measure("wide10", "warm");
  await measure("fan202", "warm");
  counting = true;
  const a = await measure("chain40", "m");
  const b = await measure("chain2", "m");
  const w = await measure("wide10", "m");
  const fanT0 = Date.now();
  // CPU of this process (the engine: scheduler and worker) and of the database's backends.
  const fanCpu0 = process.cpuUsage();
  const fanPg = cpuUse(tdb.name, () => []);
  const f = await measure("fan202", "m");
  const fanMs = (Date.now() - fanT0) / RUNS;
  const fanPgS = fanPg.stop().postgres ?? 0;
  const fanCpu = process.cpuUsage(fanCpu0);
  counting = false;
  const hopsPerRun = 38;
  const redisHop: Record<string, number> = {};
  for (const [k, v] of a.redisBy) redisHop[k] = Number(((v - (b.redisBy.get(k) ?? 0)) / RUNS / hopsPerRun).toFixed(2));
  const redisTotal = Object.values(redisHop).reduce((x, y) => x + y, 0);
  console.log(
    JSON.stringify({
      operator: values.claimed ? "sleep 0" : "noop",
      runs: RUNS,
      pg_per_hop: Number(((a.pg - b.pg) / RUNS / hopsPerRun).toFixed(2)),
      redis_per_hop: Number(redisTotal.toFixed(2)),
      redis_by_command: redisHop,
      wide10_run: { pg: Number((w.pg / RUNS).toFixed(1)), redis: Number(([...w.redisBy.values()].reduce((x, y) => x + y, 0) / RUNS).toFixed(1)) },
      fan202_run: {
        pg: Number((f.pg / RUNS).toFixed(1)),
        redis: Number(([...f.redisBy.values()].reduce((x, y) => x + y, 0) / RUNS).toFixed(1)),
        ms: Math.round(fanMs),
        cpu_ms: { engine: Math.round((fanCpu.user + fanCpu.system) / 1000 / RUNS), postgres: Math.round((fanPgS * 1000) / RUNS) },
      },
      hop_ms_p50: percentile(hops, 50),
      hop_ms_p99: percentile(hops, 99),
      trigger_to_first_task_ms_p50: percentile(starts, 50),
      last_task_to_run_end_ms_p50: percentile(ends, 50),
    }),
  );
  await benchPool.end();
  await poll.end();
  await worker.stop();
  await sched.stop();
  await queues.close();
  await tdb.drop();
  await redis.cleanup();
  rmSync(dagsDir, { recursive: true, force: true });
}

runMain(main);
