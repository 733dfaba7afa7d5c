// Engine latency and throughput vs raw BullMQ, measured in one run on this machine.
// Usage: pnpm bench [--runs 200] [--chain 20] [--tasks 8000] [--workers 4] [--concurrency 4] [--rounds 7] [--warmup 1] [--profile FILE] [--timeline] [--claimed]
// The throughput phase triggers ceil(tasks / 1000) runs of a wide DAG at once (a DAG holds at most
// 1000 tasks) and measures from the first trigger to the last run's end as the scheduler records it.
// After `warmup` uncounted turns of each, engine and raw BullMQ take turns, raw BullMQ running
// before the first round and after each one, so a slow spell of a shared machine hits both; a
// round's ratio compares the engine with the mean of the raw runs on either side, and the ratio
// reported is the median of the rounds' ratios. --profile writes a CPU profile of the
// last engine round (warmed up); --timeline prints when each wide run was created, started, queued
// its first task, started and finished its tasks (ms after the first trigger). The tasks are no-ops,
// which the engine finishes without a job (the scheduler and the workers run them at once); with
// --claimed every task is `sleep 0` instead, claimed and run by a worker from its job, as any
// operator that does something.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createTestDb, createTestRedis, waitFor } from "@svc/testing";
import { rawBullmqThroughput } from "./raw-bullmq";
import { cpuPerUnit, cpuSnapshot } from "./cpu";
import { profiled } from "./profile";
import { percentile } from "./stats";
import { runTimeline } from "./timeline";
import { benchArgs } from "./lib/args";
import { runMain } from "./lib/run-main";

const USAGE = `Usage: pnpm bench [--runs 200] [--chain 20] [--tasks 8000] [--workers 4] [--concurrency 4] [--rounds 7] [--warmup 1] [--profile FILE] [--timeline] [--claimed]
The engine alone, in one process, against raw BullMQ: latency, then throughput in rounds (ratios from one run).`;

const values = benchArgs("bench", USAGE, {
  runs: { type: "string", default: "200" },
  chain: { type: "string", default: "20" },
  tasks: { type: "string", default: "8000" },
  workers: { type: "string", default: "4" },
  concurrency: { type: "string" },
  rounds: { type: "string", default: "7" },
  warmup: { type: "string", default: "1" },
  profile: { type: "string" },
  timeline: { type: "boolean" },
  claimed: { type: "boolean" },
});
/** Every task's operator: a no-op, or with --claimed `sleep 0` (claimed, run from its job). */
const OP = values.claimed ? "sleep, args: {seconds: 0}" : "noop";
const RUNS = Number(values.runs),
  CHAIN = Number(values.chain),
  TASKS = Number(values.tasks),
  WORKERS = Number(values.workers),
  ROUNDS = Math.max(1, Number(values.rounds)),
  WARMUP = Math.max(0, Number(values.warmup));
const WIDE_RUNS = Math.ceil(TASKS / 1000),
  WIDE = Math.ceil(TASKS / WIDE_RUNS);

async function main(): Promise<void> {
  const tdb = await createTestDb("bench");
  const redis = createTestRedis("bench");
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));
  writeFileSync(path.join(dagsDir, "one.yaml"), `dag_id: one\ntasks:\n  - {task_id: t, operator: ${OP}}\n`);
  writeFileSync(
    path.join(dagsDir, "chain.yaml"),
    `dag_id: chain\ntasks:\n${Array.from({ length: CHAIN }, (_, i) => `  - {task_id: t${i}, operator: ${OP}${i ? `, depends_on: [t${i - 1}]` : ""}}`).join("\n")}\n`,
  );
  writeFileSync(
    path.join(dagsDir, "wide.yaml"),
    `dag_id: wide\nmax_active_runs: ${WIDE_RUNS}\ntasks:\n${Array.from({ length: WIDE }, (_, i) => `  - {task_id: t${i}, operator: ${OP}}`).join("\n")}\n`,
  );
  const config: SvcConfig = loadConfig({
    DATABASE_URL: tdb.url,
    REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: redis.prefix,
    SVC_DAGS_DIR: dagsDir,
    SVC_LOG_LEVEL: "silent",
    SVC_ZOMBIE_AFTER_MS: "30000",
    ...(values.concurrency ? { SVC_WORKER_CONCURRENCY: values.concurrency } : {}),
  });
  const queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const notifier = createQueueNotifier(queues);
  const catalog = defaultOperators();
  const api = createEngineApi({ db: tdb.db, notifier, dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  await syncDagFolder({ db: tdb.db, dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  for (const d of ["one", "chain", "wide"]) await api.setPaused(d, false);
  const startAll = async () => {
    const rts = [startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), worker: false })];
    for (let i = 0; i < WORKERS; i++) rts.push(startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), scheduler: false }));
    await waitFor(() => rts[0]!.scheduler!.isLeader(), { what: "scheduler leadership" });
    // The new leader parses the DAG folder and reconciles first: not part of a round.
    await rts[0]!.scheduler!.ready();
    return rts;
  };
  const runtimes = await startAll();

  const runDone = (dagId: string, runId: string, intervalMs = 5) =>
    waitFor(
      async () => {
        const r = await tdb.db.selectFrom("dag_run").select("state").where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst();
        return r && (r.state === "success" || r.state === "failed") ? r : undefined;
      },
      { timeoutMs: 600000, intervalMs },
    );

  // 1. trigger → first task start (client-side trigger time to the worker's claim time).
  const firstStart: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = Date.now();
    const run = await api.triggerDagRun("one", { runId: `lat-${i}` });
    await runDone("one", run.dag_run_id);
    const ti = await tdb.db.selectFrom("task_instance").select("start_date").where("run_id", "=", run.dag_run_id).executeTakeFirstOrThrow();
    firstStart.push(new Date(ti.start_date!).getTime() - t0);
  }

  // 2. dependency hop: end of t(i) → start of t(i+1) in a chain.
  const hops: number[] = [];
  for (let r = 0; r < 5; r++) {
    const run = await api.triggerDagRun("chain", { runId: `chain-${r}` });
    await runDone("chain", run.dag_run_id);
    const tis = await tdb.db.selectFrom("task_instance").select(["task_id", "start_date", "end_date"]).where("run_id", "=", run.dag_run_id).execute();
    const by = new Map(tis.map((t) => [t.task_id, t]));
    for (let i = 1; i < CHAIN; i++) hops.push(new Date(by.get(`t${i}`)!.start_date!).getTime() - new Date(by.get(`t${i - 1}`)!.end_date!).getTime());
  }

  // 3. throughput: WIDE_RUNS runs of WIDE independent no-op tasks, triggered together; then raw
  // BullMQ with the same number of jobs, workers and slots (the engine stopped meanwhile).
  const engineTasks = WIDE * WIDE_RUNS;
  let running: typeof runtimes | undefined = runtimes;
  const engineRound = async (label: string, profile?: string) => {
    running ??= await startAll();
    const cpu0 = cpuSnapshot();
    const t0 = Date.now();
    const ends = await profiled(profile, async () => {
      const wide = await Promise.all(Array.from({ length: WIDE_RUNS }, (_, i) => api.triggerDagRun("wide", { runId: `wide-${label}-${i}`, logicalDate: new Date(t0 + i) })));
      // One query per poll for all runs of the round: the bench's own load on the engine's process stays small.
      const ids = wide.map((w) => w.dag_run_id);
      const rows = await waitFor(
        async () => {
          const rs = await tdb.db.selectFrom("dag_run").select(["state", "end_date"]).where("dag_id", "=", "wide").where("run_id", "in", ids).execute();
          return rs.length === ids.length && rs.every((r) => r.state === "success" || r.state === "failed") ? rs : undefined;
        },
        { timeoutMs: 600000, intervalMs: 100 },
      );
      return rows.map((r) => new Date(r.end_date!).getTime());
    });
    const engineCpu = cpuPerUnit(cpu0, cpuSnapshot(), engineTasks);
    const firstWide = await tdb.db
      .selectFrom("task_instance")
      .select((eb) => eb.fn.min("start_date").as("s"))
      .where("dag_id", "=", "wide")
      .where("run_id", "like", `wide-${label}-%`)
      .executeTakeFirstOrThrow();
    const rampMs = new Date(firstWide.s as unknown as string).getTime() - t0;
    if (values.timeline) console.log((await runTimeline(tdb.db, "wide", `wide-${label}-`, t0)).join("\n"));
    for (const rt of running) await rt.stop();
    running = undefined;
    return { engine: engineTasks / ((Math.max(...ends) - t0) / 1000), engineCpu, rampMs };
  };
  const rawRound = (label: string) => rawBullmqThroughput(redis.url, `${redis.prefix}-raw${label}`, engineTasks, WORKERS, config.worker.concurrency);

  // Warm-up (not counted): both sides' code compiled and caches filled before the first round.
  for (let i = 0; i < WARMUP; i++) {
    await engineRound(`warm${i}`);
    await rawRound(`warm${i}`);
  }
  // Raw BullMQ runs before the first round and after every round; each round's ratio compares the
  // engine with the mean of the raw runs on either side, so a machine speeding up or slowing down
  // during the benchmark does not favour the side measured later.
  const rounds: { engine: number; raw: number; rawRuns: [number, number]; engineCpu: string; rawCpu: string; rampMs: number }[] = [];
  let rawBefore = await rawRound("0");
  for (let round = 0; round < ROUNDS; round++) {
    const e = await engineRound(String(round), round === ROUNDS - 1 ? values.profile : undefined);
    const rawAfter = await rawRound(String(round + 1));
    rounds.push({ ...e, raw: (rawBefore.rate + rawAfter.rate) / 2, rawRuns: [rawBefore.rate, rawAfter.rate], rawCpu: rawAfter.cpu });
    rawBefore = rawAfter;
  }
  const ratios = rounds.map((r) => r.engine / r.raw);

  const fmt = (n: number) => n.toFixed(1);
  console.log(`machine: ${os.cpus().length} cores, node ${process.version}`);
  console.log(`trigger → first task start: p50 ${fmt(percentile(firstStart, 50))} ms, p99 ${fmt(percentile(firstStart, 99))} ms (${RUNS} runs)`);
  console.log(`dependency hop: p50 ${fmt(percentile(hops, 50))} ms, p99 ${fmt(percentile(hops, 99))} ms (${hops.length} hops)`);
  console.log(
    `${values.claimed ? "claimed (sleep 0)" : "no-op"} throughput, ${WORKERS} workers × ${config.worker.concurrency} slots, ${engineTasks} tasks (${WIDE_RUNS} runs) per round, engine and raw BullMQ taking turns:`,
  );
  rounds.forEach((r, i) => {
    console.log(
      `  round ${i + 1}: engine ${fmt(r.engine)} tasks/s, raw BullMQ ${fmt(r.raw)} jobs/s (runs before and after: ${r.rawRuns.map(fmt).join(", ")}), ratio ${ratios[i]!.toFixed(2)}; first task ${r.rampMs} ms after the first trigger`,
    );
    console.log(`    engine: ${r.engineCpu}`);
    console.log(`    raw BullMQ: ${r.rawCpu}`);
  });
  console.log(
    `  median: engine ${fmt(
      percentile(
        rounds.map((r) => r.engine),
        50,
      ),
    )} tasks/s, raw BullMQ ${fmt(
      percentile(
        rounds.map((r) => r.raw),
        50,
      ),
    )} jobs/s, ratio ${percentile(ratios, 50).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(", ")})`,
  );

  await queues.close();
  await redis.cleanup();
  await tdb.drop();
  rmSync(dagsDir, { recursive: true, force: true });
}

runMain(main);
