// The suite as users run it: every service as its own process, nginx in front, on the shared
// Postgres (a database of its own, dropped at the end) and Redis (a key prefix of its own).
// Usage: pnpm bench:system --help.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { createDb } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createTestDb, createTestRedis, waitFor } from "@svc/testing";
import { percentile } from "../stats";
import { timeRuns, wideDag, withWorkers } from "./engine-phases";
import { autocannon, probeLatency, type CannonResult } from "./load";
import { runPeers, PEER_DAGS, type PeerTimes } from "./peers";
import { formatTable, jsonLine } from "./report";
import { rssNow, rssPeaks } from "./rss";
import { cpuUse, formatCpu } from "./cpu-use";
import { startStack } from "./stack";
import { findNginx, MissingTool } from "./nginx";
import { createCleanups } from "../lib/cleanups";
import { benchArgs } from "../lib/args";
import type { ServiceProc } from "../chaos/service-proc";
import { measureIntentFloor } from "./intent-floor";
import { measureAsyncIntents, type AsyncIntents } from "./intent-async";

const USAGE = `Usage: pnpm bench:system [--connections 200] [--seconds 10] [--runs 1000] [--width 10] [--workers 2] [--concurrency 4]
  [--scaling-tasks 400] [--peers true] [--peer-seq 40] [--peer-fan 200] [--parts intents,floor,async,runs,scaling,peers] [--cpu-prof DIR]
Runs every service as its own process behind nginx and prints a table, then one JSON line (the last line of stdout).`;
const values = benchArgs("bench:system", USAGE, {
  connections: { type: "string", default: "200" },
  seconds: { type: "string", default: "10" },
  runs: { type: "string", default: "1000" },
  width: { type: "string", default: "10" },
  workers: { type: "string", default: "2" },
  concurrency: { type: "string", default: "4" },
  "scaling-tasks": { type: "string", default: "400" },
  peers: { type: "string", default: "true" },
  "peer-seq": { type: "string", default: "40" },
  "peer-fan": { type: "string", default: "200" },
  parts: { type: "string", default: "intents,floor,async,runs,scaling,peers" },
  "cpu-prof": { type: "string" },
  help: { type: "boolean", short: "h" },
});
const CONNECTIONS = Number(values.connections),
  SECONDS = Number(values.seconds),
  RUNS = Math.min(1000, Number(values.runs)),
  WIDTH = Number(values.width);
const WORKERS = Number(values.workers),
  CONCURRENCY = Number(values.concurrency),
  SCALING_TASKS = Number(values["scaling-tasks"]);
const SEQ = Number(values["peer-seq"]),
  FAN = Number(values["peer-fan"]);
const PARTS = new Set(values.parts.split(","));
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const say = (s: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (o: Record<string, number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(", ");

// Ctrl-C or the time limit still stops every process started here and drops the bench's database and keys.
const cleanups = createCleanups();
const runCleanups = cleanups.run;

async function main(): Promise<void> {
  findNginx(); // before anything is started: a missing nginx is said in one line, with how to install it
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-sysbench-"));
  const tdb = await createTestDb("sysbench");
  const redis = createTestRedis("sysbench");
  cleanups.push(
    async () => rmSync(dir, { recursive: true, force: true }),
    () => tdb.drop(),
    () => redis.cleanup(),
  );
  try {
    const scalingWidth = 100;
    const dags = {
      sys_noop: wideDag("sys_noop", WIDTH, RUNS),
      sys_io: wideDag("sys_io", scalingWidth, Math.ceil(SCALING_TASKS / scalingWidth), 0.05),
      ...PEER_DAGS(SEQ, FAN),
    };
    const stack = await startStack({
      dir,
      databaseUrl: tdb.url,
      redisUrl: redis.url,
      prefix: redis.prefix,
      workers: WORKERS,
      concurrency: CONCURRENCY,
      extraDags: dags,
      cpuProfDir: values["cpu-prof"],
    });
    cleanups.unshift(() => stack.stop());
    const config = loadConfig({ ...stack.env });
    const queues = createQueues({ url: redis.url, prefix: redis.prefix });
    cleanups.unshift(() => queues.close());
    // The bench's own pool (the clients of the REST API would each have theirs).
    const db = createDb(tdb.url, { max: 10, applicationName: "sysbench" });
    cleanups.unshift(() => db.destroy());
    const api = createEngineApi({ db, notifier: createQueueNotifier(queues), dagsDir: stack.dagsDir, catalog: defaultOperators(), settings: dagSettingsFromConfig(config) });
    await waitFor(async () => (await db.selectFrom("dag").select("dag_id").where("dag_id", "in", Object.keys(dags)).execute()).length === Object.keys(dags).length, {
      timeoutMs: 120000,
      intervalMs: 500,
      what: "bench DAGs parsed",
    });
    for (const d of Object.keys(dags)) await api.setPaused(d, false);
    say(`stack up behind nginx at ${stack.nginxUrl}: scheduler, ${WORKERS} workers × ${CONCURRENCY}, orchestrator, web-ui, assistant-api`);
    await sleep(5000);
    const rssIdle = rssNow(stack.services());
    say(`idle RSS (MB): ${mb(rssIdle)}`);

    // 1. Intents through nginx (offline router, no execution): one connection first (the cost of
    // one intent), then CONNECTIONS with the REST API probed meanwhile.
    const peaks = rssPeaks(() => stack.services());
    const dbName = new URL(tdb.url).pathname.slice(1);
    // CPU ms the stack (services and the bench database's Postgres backends) spends per intent and per run.
    const cpu = { intent: NaN, floor: NaN, async: NaN, run: NaN };
    const none: CannonResult = { requests: 0, rps: NaN, p50: NaN, p99: NaN, errors: 0, non2xx: 0 };
    let single = none,
      intents = none,
      floor = none,
      apiLat: number[] = [];
    const body = { intent: "create a vm called bench01", auto_execute: false };
    if (PARTS.has("intents")) {
      const cpuSingle = cpuUse(dbName, () => stack.services());
      single = await autocannon(`${stack.nginxUrl}/orchestrator/intent`, body, 1, Math.min(5, SECONDS));
      const usedSingle = cpuSingle.stop();
      say(`intents, 1 connection: ${single.rps.toFixed(0)}/s, p50 ${single.p50} ms, p99 ${single.p99} ms; ${single.requests} intents: ${formatCpu(usedSingle)}`);
      const cpuMany = cpuUse(dbName, () => stack.services());
      const cannon = autocannon(`${stack.nginxUrl}/orchestrator/intent`, body, CONNECTIONS, SECONDS);
      apiLat = await probeLatency(`${stack.nginxUrl}/api/v1/dags?limit=10`, cannon);
      intents = await cannon;
      say(
        `intents: ${intents.rps.toFixed(0)}/s, p50 ${intents.p50} ms, p99 ${intents.p99} ms, errors ${intents.errors}, non-2xx ${intents.non2xx}; REST p99 under load ${percentile(apiLat, 99).toFixed(0)} ms`,
      );
      const usedMany = cpuMany.stop();
      // Per intent: every process but the web UI (it serves the REST reads sent meanwhile).
      cpu.intent = (1000 * (sum(usedMany) - (usedMany["web-ui"] ?? 0))) / intents.requests;
      say(`${intents.requests} intents (and ${apiLat.length} REST reads): ${formatCpu(usedMany)}`);
    }

    // 1b. The intents' floor: the same load on an Express handler (in this process) that only inserts
    // the intent's row into this database and adds its job on a prefix of its own (intent-floor.ts).
    if (PARTS.has("floor")) {
      const cpuFloor = cpuUse(dbName, () => [{ name: "floor (bench process)", pid: () => process.pid } as ServiceProc]);
      floor = await measureIntentFloor({
        databaseUrl: tdb.url,
        redisUrl: redis.url,
        prefix: `${redis.prefix}:floor`,
        dir: path.join(dir, "floor"),
        connections: CONNECTIONS,
        seconds: SECONDS,
        body,
      });
      const used = cpuFloor.stop();
      cpu.floor = (1000 * sum(used)) / floor.requests;
      say(`floor (insert + BullMQ add): ${floor.rps.toFixed(0)}/s, p50 ${floor.p50} ms, p99 ${floor.p99} ms, errors ${floor.errors}, non-2xx ${floor.non2xx}; ${formatCpu(used)}`);
    }

    // 1c. The same intents sent with `Prefer: respond-async` (answered once accepted), and the
    // orchestrator's planning of what they left behind; CPU per intent counts both.
    let accepted: AsyncIntents | undefined;
    if (PARTS.has("async")) {
      const cpuAsync = cpuUse(dbName, () => stack.services());
      accepted = await measureAsyncIntents({ db, url: `${stack.nginxUrl}/orchestrator/intent`, body, connections: CONNECTIONS, seconds: SECONDS });
      const used = cpuAsync.stop();
      cpu.async = (1000 * (sum(used) - (used["web-ui"] ?? 0))) / accepted.load.requests;
      const a = accepted.load;
      say(`intents with Prefer: respond-async: ${a.rps.toFixed(0)}/s, p50 ${a.p50} ms, p99 ${a.p99} ms, errors ${a.errors}, non-2xx ${a.non2xx}`);
      say(`${a.requests} accepted, ${accepted.backlog} left to plan, planned ${accepted.drainS.toFixed(1)} s after the load; ${formatCpu(used)}`);
    }

    // 2. RUNS concurrent no-op runs of WIDTH tasks each.
    const cpuRuns = cpuUse(dbName, () => stack.services());
    const tasksS = PARTS.has("runs") ? await timeRuns(db, api, "sys_noop", RUNS, "noop", 600000, (p) => say(`${RUNS} runs: ${p}`)) : NaN;
    if (PARTS.has("runs")) {
      const used = cpuRuns.stop();
      cpu.run = (1000 * sum(used)) / RUNS;
      say(`${RUNS} runs: ${formatCpu(used)} (the trigger calls run in the bench's process, not counted)`);
    }
    const rssLoad = peaks.stop();
    if (PARTS.has("runs")) say(`${RUNS * WIDTH} no-op task instances (${RUNS} runs × ${WIDTH}) in ${tasksS.toFixed(2)} s`);

    // 3. Worker scaling on 50 ms tasks, per-worker concurrency fixed.
    const scaling: Record<string, number> = {};
    for (const n of PARTS.has("scaling") ? [1, 2, 4] : []) {
      await withWorkers(db, stack, n);
      const s = await timeRuns(db, api, "sys_io", Math.ceil(SCALING_TASKS / scalingWidth), `io${n}`, 600000);
      scaling[String(n)] = (Math.ceil(SCALING_TASKS / scalingWidth) * scalingWidth) / s;
      say(`${n} worker(s) × ${CONCURRENCY}: ${scaling[String(n)]!.toFixed(1)} tasks/s`);
    }

    // 4. Peers: the same two workloads on raw BullMQ, graphile-worker and pg-boss.
    let peers: PeerTimes | undefined;
    if (values.peers !== "false" && PARTS.has("peers")) {
      await withWorkers(db, stack, WORKERS);
      peers = await runPeers({ db, api, databaseUrl: tdb.url, redisUrl: redis.url, prefix: redis.prefix, seq: SEQ, fan: FAN, concurrency: CONCURRENCY, say });
    }

    console.log(
      formatTable(`system benchmark (${os.cpus().length} cores, node ${process.version})`, [
        [
          "intents via nginx",
          `${CONNECTIONS} connections, ${SECONDS} s: ${intents.rps.toFixed(0)} req/s, p50 ${intents.p50} ms, p99 ${intents.p99} ms (${intents.errors} errors, ${intents.non2xx} non-2xx)`,
        ],
        ["intents via nginx, 1 connection", `${single.rps.toFixed(0)} req/s, p50 ${single.p50} ms, p99 ${single.p99} ms`],
        ["stack CPU per intent (200 connections)", `${cpu.intent.toFixed(1)} ms (services and Postgres, the web UI's REST reads left out)`],
        [
          "intent floor via nginx (insert + BullMQ add)",
          `${floor.rps.toFixed(0)} req/s, p50 ${floor.p50} ms, p99 ${floor.p99} ms; CPU ${cpu.floor.toFixed(1)} ms per request (handler and Postgres)`,
        ],
        ["intents ÷ floor (req/s)", (intents.rps / floor.rps).toFixed(2)],
        [
          "intents, Prefer: respond-async",
          accepted
            ? `${accepted.load.rps.toFixed(0)} req/s, p50 ${accepted.load.p50} ms, p99 ${accepted.load.p99} ms; ÷ floor ${(accepted.load.rps / floor.rps).toFixed(2)}; all planned ${accepted.drainS.toFixed(1)} s after; CPU ${cpu.async.toFixed(1)} ms per intent, planning included`
            : "not run",
        ],
        ["REST API p99 during the intents", `${percentile(apiLat, 99).toFixed(0)} ms (p50 ${percentile(apiLat, 50).toFixed(0)} ms, ${apiLat.length} requests)`],
        [`${RUNS * WIDTH} no-op task instances`, `${tasksS.toFixed(2)} s (${RUNS} runs × ${WIDTH}, ${WORKERS} workers × ${CONCURRENCY})`],
        ["stack CPU per run of the 10,000 tasks", `${cpu.run.toFixed(1)} ms (services and Postgres; the triggers run in the bench)`],
        ...Object.entries(scaling).map(([n, v]): [string, string] => [`${n} worker(s), 50 ms tasks`, `${v.toFixed(1)} tasks/s (×${(v / scaling["1"]!).toFixed(2)})`]),
        ["RSS idle (MB)", mb(rssIdle)],
        ["RSS peak under load (MB)", mb(rssLoad)],
        ...(peers ? peers.rows : []),
      ]),
    );
    console.log(
      jsonLine({
        connections: CONNECTIONS,
        intent_rps: intents.rps,
        intent_p50_ms: intents.p50,
        intent_p99_ms: intents.p99,
        api_p99_under_load_ms: percentile(apiLat, 99),
        tasks_10k_s: tasksS,
        cpu_ms_per_intent: cpu.intent,
        floor_rps: floor.rps,
        floor_p50_ms: floor.p50,
        floor_p99_ms: floor.p99,
        cpu_ms_per_floor_request: cpu.floor,
        intent_floor_ratio: intents.rps / floor.rps,
        intent_async_rps: accepted?.load.rps ?? null,
        intent_async_floor_ratio: accepted ? accepted.load.rps / floor.rps : null,
        intent_async_drain_s: accepted?.drainS ?? null,
        cpu_ms_per_async_intent: accepted ? cpu.async : null,
        cpu_ms_per_run: cpu.run,
        worker_scaling: scaling,
        rss_idle_mb: rssIdle,
        rss_load_mb: rssLoad,
        peers: peers?.json ?? {},
      }),
    );
  } finally {
    await runCleanups((e) => say(`cleanup: ${String(e)}`));
  }
}

const hardStop = setTimeout(
  () => {
    process.stderr.write("bench:system: 19-minute limit reached\n");
    void runCleanups(() => undefined).then(() => process.exit(2));
  },
  19 * 60 * 1000,
);
hardStop.unref();
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof MissingTool ? `bench:system: ${e.message}` : e);
    process.exit(1);
  },
);
