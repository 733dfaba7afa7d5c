// Chaos run: 100+ concurrent runs of a DAG with retries while workers are killed, the scheduler
// and the orchestrator restart, Redis comes back empty and Postgres crashes and stays down a while; then checks
// from the database that every run ended with a stated reason, nothing is stuck or lost and no try
// landed twice. Uses its own redis-server and its own PostgreSQL cluster (removed at the end).
// Usage: pnpm chaos [--runs 120] [--workers 3] [--intents 20] [--seconds 45] [--drain 300] [--db-outage 10]
//        pnpm chaos --ha [--runs 120]: the Redis Sentinel and Postgres (pg_auto_failover) failover drills instead (bench/chaos/ha.ts)
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { createDb, createPool, ensureDatabase } from "@svc/db";
import { migrateDatabase } from "@svc/engine-sql";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { freePort, waitFor } from "@svc/testing";
import { formatTable, jsonLine } from "../system/report";
import { countFlows, countRuns, installCommitAudit } from "./checks";
import { postIntents } from "./intents";
import { startOwnPostgres } from "./own-postgres";
import { startOwnRedis } from "./own-redis";
import { runHaChaos } from "./ha";
import { serviceProc, type ServiceProc } from "./service-proc";
import { createCleanups } from "../lib/cleanups";
import { benchArgs } from "../lib/args";

const USAGE = `Usage: pnpm chaos [--runs 120] [--workers 3] [--intents 20] [--seconds 45] [--drain 300] [--db-outage 10] [--ha]
Runs while processes are killed, Redis is wiped and Postgres stops; then checks from the database.`;

const values = benchArgs("chaos", USAGE, {
  runs: { type: "string", default: "120" },
  workers: { type: "string", default: "3" },
  intents: { type: "string", default: "20" },
  seconds: { type: "string", default: "45" },
  drain: { type: "string", default: "300" },
  "db-outage": { type: "string", default: "10" },
  ha: { type: "boolean", default: false },
});
const RUNS = Number(values.runs),
  WORKERS = Math.max(1, Number(values.workers)),
  INTENTS = Number(values.intents);
const CHAOS_MS = Number(values.seconds) * 1000,
  DRAIN_MS = Number(values.drain) * 1000,
  OUTAGE_MS = Number(values["db-outage"]) * 1000;
const ROOT = path.resolve(__dirname, "../..");
const DAG_ID = "chaos";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (s: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);

const CHAOS_DAG = `dag_id: ${DAG_ID}
description: Chaos test DAG (sleeps, a flaky task with retries, a fan-in)
max_active_runs: 1000
tasks:
  - {task_id: start, operator: noop}
  - {task_id: short, operator: sleep, args: {seconds: 1}, depends_on: [start], retries: 3, retry_delay: 1s}
  - {task_id: long, operator: sleep, args: {seconds: 3}, depends_on: [start], retries: 3, retry_delay: 1s}
  - {task_id: flaky, operator: fail, args: {succeed_on_try: 2}, depends_on: [start], retries: 3, retry_delay: 1s}
  - {task_id: after, operator: sleep, args: {seconds: 0.5}, depends_on: [short, long, flaky], retries: 3, retry_delay: 1s}
  - {task_id: end, operator: noop, depends_on: [after]}
`;

// Ctrl-C or the time limit still stops every process started here and removes the private Postgres and Redis.
const cleanups = createCleanups();
const runCleanups = cleanups.run;

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "svc-chaos-"));
  cleanups.push(async () => rmSync(tmp, { recursive: true, force: true }));
  const procs: ServiceProc[] = [];
  try {
    const pgc = await startOwnPostgres();
    cleanups.unshift(() => pgc.remove());
    const redis = await startOwnRedis();
    cleanups.unshift(() => redis.stop());
    say(`own postgres on 127.0.0.1:${pgc.port}, own redis on 127.0.0.1:${redis.port}, files in ${tmp}`);

    const dagsDir = path.join(tmp, "dags");
    mkdirSync(dagsDir);
    for (const f of readdirSync(path.join(ROOT, "dags")).filter((f) => f.endsWith(".yaml"))) copyFileSync(path.join(ROOT, "dags", f), path.join(dagsDir, f));
    writeFileSync(path.join(dagsDir, `${DAG_ID}.yaml`), CHAOS_DAG);

    const dbUrl = pgc.url.replace(/\/postgres$/, "/svc_chaos");
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      USER: process.env.USER,
      LANG: process.env.LANG,
      DATABASE_URL: dbUrl,
      REDIS_URL: redis.url,
      SVC_REDIS_PREFIX: "chaos",
      SVC_DAGS_DIR: dagsDir,
      SVC_DOCS_DIR: path.join(ROOT, "docs"),
      SVC_PLAYBOOKS_DIR: path.join(ROOT, "playbooks"),
      SVC_LOG_LEVEL: "warn",
      SVC_LOG_FORMAT: "json",
      SVC_ZOMBIE_AFTER_MS: "3000",
      SVC_RECONCILE_INTERVAL_MS: "2000",
      SVC_WORKER_CONCURRENCY: "4",
      SVC_BIND_HOST: "127.0.0.1",
      SVC_ASSISTANT_PORT: String(await freePort()),
      SVC_WEB_UI_PORT: String(await freePort()),
      SVC_INVENTORY_DIR: path.join(tmp, "inventory"),
      SVC_VM_IMAGES_DIR: path.join(tmp, "images"),
      SVC_VM_DISKS_DIR: path.join(tmp, "vms"),
    };
    const config = loadConfig(env);
    // The database is created and migrated here, before any service races to do it.
    await ensureDatabase(dbUrl);
    const db = createDb(dbUrl, { max: 4, applicationName: "chaos" });
    cleanups.unshift(() => db.destroy());
    const { error } = await migrateDatabase(db);
    if (error) throw error;
    const pool = createPool(dbUrl, { max: 2, applicationName: "chaos-checks" });
    cleanups.unshift(() => pool.end());
    await installCommitAudit(pool);

    const log = (n: string) => path.join(tmp, `${n}.log`);
    const scheduler = serviceProc("scheduler", "scheduler", env, log("scheduler"));
    const workers = Array.from({ length: WORKERS }, (_, i) => serviceProc(`worker-${i + 1}`, "worker", env, log(`worker-${i + 1}`)));
    const orchestrator = serviceProc("orchestrator", "orchestrator", env, log("orchestrator"));
    const api = serviceProc("assistant-api", "assistant-api", env, log("assistant-api"));
    procs.push(scheduler, ...workers, orchestrator, api);
    for (const p of procs) p.start();
    cleanups.unshift(async () => {
      for (const p of procs) await p.stop(5000);
    });
    const apiUrl = `http://127.0.0.1:${env.SVC_ASSISTANT_PORT}`;
    await waitFor(async () => (await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(2000) })).status < 500, { timeoutMs: 120000, intervalMs: 500, what: "assistant API" });
    await waitFor(async () => (await db.selectFrom("dag").select("dag_id").where("dag_id", "=", DAG_ID).executeTakeFirst()) ?? undefined, {
      timeoutMs: 120000,
      intervalMs: 500,
      what: "chaos DAG parsed by the scheduler",
    });
    say(`stack up: scheduler, ${WORKERS} workers × 4 slots, orchestrator, assistant API on ${apiUrl}`);

    const queues = createQueues({ url: redis.url, prefix: "chaos" });
    cleanups.unshift(() => queues.close());
    const engine = createEngineApi({ db, notifier: createQueueNotifier(queues), dagsDir, catalog: defaultOperators(), settings: dagSettingsFromConfig(config) });
    await engine.setPaused(DAG_ID, false);
    const t0 = Date.now();
    const triggered = await Promise.all(Array.from({ length: RUNS }, (_, i) => engine.triggerDagRun(DAG_ID, { runId: `chaos-${i}`, logicalDate: new Date(t0 + i) })));
    say(`triggered ${triggered.length} runs`);

    // The fault schedule, relative to the trigger; every step bounded.
    const counts = { kills: 0, redis_wipes: 0, restarts: 0, db_outages: 0 };
    const flowIds: string[] = [];
    let intentsRejected = 0;
    const at = (ms: number) => sleep(Math.max(0, t0 + ms - Date.now()));
    const killer = (async () => {
      for (let t = 2000; t < CHAOS_MS; t += 4000) {
        await at(t);
        const w = workers[Math.floor(Math.random() * workers.length)]!;
        await w.kill9();
        counts.kills++;
        say(`kill -9 ${w.name}`);
        w.start();
      }
    })();
    await at(Math.min(8000, CHAOS_MS * 0.15));
    await scheduler.kill9();
    scheduler.start();
    counts.restarts++;
    say("scheduler killed and restarted");

    await at(Math.min(12000, CHAOS_MS * 0.25));
    const posting = postIntents(apiUrl, INTENTS, 30000);
    await sleep(150);
    await orchestrator.kill9();
    counts.restarts++;
    say(`orchestrator killed with ${INTENTS} intents in flight`);
    await sleep(1000);
    orchestrator.start();
    const posted = await posting;
    flowIds.push(...posted.flowIds);
    intentsRejected += posted.failed;
    say(`intents: ${posted.flowIds.length} accepted, ${posted.failed} answered with an error`);

    await at(Math.min(18000, CHAOS_MS * 0.4));
    await redis.restartWiped();
    counts.redis_wipes++;
    say("redis restarted with its data wiped");

    await at(Math.min(26000, CHAOS_MS * 0.55));
    // A crash, not a clean stop: commits that did not wait for the disk (the engine's decisions) may be lost.
    await pgc.crash();
    counts.db_outages++;
    say(`postgres crashed (immediate stop), down for ${OUTAGE_MS / 1000} s`);
    await sleep(OUTAGE_MS);
    await pgc.start();
    say("postgres started again");
    await killer;
    say(`chaos over after ${((Date.now() - t0) / 1000).toFixed(0)} s; waiting up to ${DRAIN_MS / 1000} s for runs and flows to settle`);

    const drainStart = Date.now();
    await waitFor(
      async () => {
        const r = await countRuns(pool, DAG_ID);
        const f = await countFlows(pool, flowIds);
        return r.unfinishedRuns === 0 && r.runs >= RUNS && f.unsettled === 0 ? true : undefined;
      },
      { timeoutMs: DRAIN_MS, intervalMs: 1000 },
    ).catch(() => say("drain deadline reached with work unfinished"));
    const drainS = (Date.now() - drainStart) / 1000;
    const r = await countRuns(pool, DAG_ID);
    const f = await countFlows(pool, flowIds);
    const lostRuns = RUNS - r.runs;
    const lost = lostRuns + (flowIds.length - f.found) + f.unsettled;
    const stuck = r.stuckTasks + r.unfinishedRuns;
    console.log(
      formatTable(`chaos: ${RUNS} runs of '${DAG_ID}', ${WORKERS} workers, ${os.cpus().length} cores`, [
        ["runs", r.runs],
        ["success", r.success],
        ["failed", r.failed],
        ["failed without a stated reason", r.failedWithoutReason],
        ["runs lost (triggered, not in the database)", lostRuns],
        ["runs unfinished", r.unfinishedRuns],
        ["task instances stuck", r.stuckTasks],
        ["tries committed twice", r.doubleCommits],
        ["tries lost with a killed worker (zombies)", r.zombieTries],
        ["tries beyond the first (retries, zombies)", r.extraTries],
        ["intents accepted / answered with an error", `${flowIds.length} / ${intentsRejected}`],
        ["flows by status", JSON.stringify(f.byStatus)],
        ["flows lost or unsettled", flowIds.length - f.found + f.unsettled],
        ["worker kills (-9)", counts.kills],
        ["redis wipes", counts.redis_wipes],
        ["scheduler/orchestrator restarts", counts.restarts],
        ["postgres crashes (down)", `${counts.db_outages} × ${OUTAGE_MS / 1000} s`],
        ["settled after the chaos in", `${drainS.toFixed(1)} s`],
        ...Object.entries(r.reasons).map(([k, v]): [string, number] => [`  failure: ${k.slice(0, 80)}`, v]),
      ]),
    );
    console.log(
      jsonLine({
        runs: r.runs,
        success: r.success,
        failed: r.failed,
        lost,
        stuck,
        double_commits: r.doubleCommits,
        ...counts,
        failed_without_reason: r.failedWithoutReason,
        flows: flowIds.length,
      }),
    );
    process.exitCode = lost || stuck || r.doubleCommits || r.failedWithoutReason ? 1 : 0;
  } finally {
    await runCleanups((e) => say(`cleanup: ${String(e)}`));
  }
}

const hardStop = setTimeout(
  () => {
    process.stderr.write("chaos: 19-minute limit reached\n");
    void runCleanups(() => undefined).then(() => process.exit(2));
  },
  19 * 60 * 1000,
);
hardStop.unref();
(values.ha ? runHaChaos(Number(values.runs)).then((code) => void (process.exitCode = code)) : main()).then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
