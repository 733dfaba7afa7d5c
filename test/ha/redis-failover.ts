// The Redis failover drill shared by the HA test and `pnpm chaos --ha`: real services (scheduler,
// two workers, web UI) reach Redis only through three sentinels; 100+ runs are in flight when the
// primary is killed with -9; meanwhile a client keeps triggering through the REST API. Returns what
// happened, measured, for the caller to assert or print. SVC_HA_KEEP_LOGS=<dir> keeps the services' logs;
// SVC_HA_DEBUG=<DEBUG value> (e.g. ioredis:redis,ioredis:SentinelConnector) adds the Redis client's own trace.
import IORedis from "ioredis";
import { createPool } from "@svc/db";
import { QUEUE_NAMES } from "@svc/queue";
import { waitFor } from "@svc/testing";
import { countRuns, installCommitAudit, type RunCounts } from "../../bench/chaos/checks";
import { AUTH, startFaultStack } from "../security/fault-stack";
import { drillDag, keepLogs, serviceLines, taskStates } from "./drill-parts";
import { startSentinelSet, type SentinelSet } from "./sentinel-set";

export const HA_DAG_ID = "ha_redis";

export interface ApiAnswer {
  status: number;
  /** Seconds the answer took. */
  seconds: number;
  /** Milliseconds after the kill the request was sent. */
  atMs: number;
}

export interface RedisFailoverResult {
  runs: RunCounts;
  /** Runs triggered before the kill, and through the REST API during and after it (200s). */
  triggered: number;
  /** Milliseconds from kill -9 until the sentinels named the new primary. */
  promotionMs: number;
  /** Milliseconds from kill -9 until the REST API accepted a trigger again. */
  apiBackMs: number;
  answers: ApiAnswer[];
  /** Seconds from the kill until every run had ended. */
  settledS: number;
  oldPrimaryPort: number;
  newPrimaryPort: number;
  /** When runs were left unfinished: task states, and each service's last warnings and errors. */
  diagnosis?: { taskStates: Record<string, number>; services: Record<string, string[]>; redis: Record<string, unknown> };
}

/** Where the tasks queue stands on the current primary, and what each connected client is doing. */
async function redisState(sentinels: SentinelSet, prefix: string): Promise<Record<string, unknown>> {
  const port = await sentinels.currentPrimaryPort();
  const r = new IORedis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1, lazyConnect: true });
  r.on("error", () => undefined);
  try {
    await r.connect();
    const k = (s: string) => `${prefix}:${QUEUE_NAMES.tasks}:${s}`;
    return {
      port,
      role: await r.call("ROLE"),
      wait: await r.llen(k("wait")),
      active: await r.llen(k("active")),
      paused: await r.llen(k("paused")),
      prioritized: await r.zcard(k("prioritized")),
      delayed: await r.zcard(k("delayed")),
      marker: await r.zrange(k("marker"), 0, -1, "WITHSCORES"),
      meta: await r.hgetall(k("meta")),
      clients: ((await r.call("CLIENT", "LIST")) as string)
        .split("\n")
        .map((l) =>
          l
            .split(" ")
            .filter((f) => /^(addr|name|cmd)=/.test(f))
            .join(" "),
        )
        .filter(Boolean),
    };
  } finally {
    r.disconnect();
  }
}

/** `runs` triggered up front; the primary is killed once `killAfterDone` tries have landed. */
export async function redisFailoverDrill(o: { databaseUrl: string; runs: number; label: string; say?: (s: string) => void }): Promise<RedisFailoverResult> {
  const say = o.say ?? (() => undefined);
  const sentinels = await startSentinelSet();
  const pool = createPool(o.databaseUrl, { max: 2, applicationName: "ha-checks" });
  const stack = await startFaultStack({
    label: o.label,
    databaseUrl: o.databaseUrl,
    redisUrl: sentinels.url,
    dags: { [HA_DAG_ID]: drillDag(HA_DAG_ID) },
    env: { SVC_WORKER_CONCURRENCY: "8", SVC_ZOMBIE_AFTER_MS: "4000", SVC_LOG_LEVEL: "warn", ...(process.env.SVC_HA_DEBUG ? { DEBUG: process.env.SVC_HA_DEBUG } : {}) },
  });
  try {
    await installCommitAudit(pool);
    await stack.start("scheduler", "scheduler");
    await stack.start("worker-1", "worker");
    await stack.start("worker-2", "worker");
    await stack.start("web-ui", "web-ui");
    say(`sentinels on ${sentinels.sentinelPorts.join(", ")}; primary ${sentinels.primary.port}, replica ${sentinels.replica.port}; services up`);

    const t0 = Date.now();
    for (let i = 0; i < o.runs; i++) await stack.api.triggerDagRun(HA_DAG_ID, { runId: `ha-${i}`, logicalDate: new Date(t0 + i) });
    let triggered = o.runs;
    say(`${o.runs} runs triggered`);
    // Kill while work is really in flight: some tries landed, most runs still going.
    await waitFor(async () => (await pool.query("select count(*)::int as n from task_instance where dag_id = $1 and state = 'success'", [HA_DAG_ID])).rows[0].n >= o.runs / 2, {
      timeoutMs: 120_000,
      intervalMs: 100,
      what: "the first tries landed",
    });
    const inFlight = (await countRuns(pool, HA_DAG_ID)).unfinishedRuns;
    const oldPrimaryPort = sentinels.primary.port;
    const killedAt = Date.now();
    await sentinels.primary.kill9();
    say(`primary killed (-9) with ${inFlight} runs unfinished`);

    // A client triggering through the REST API during the failover: each answer is 200 or 503, fast.
    const answers: ApiAnswer[] = [];
    let promotedAt = 0;
    const promotion = sentinels.waitForPromotion(oldPrimaryPort, 60_000).then((p) => ((promotedAt = Date.now()), p));
    let apiBackAt = 0;
    for (let k = 0; apiBackAt === 0 || promotedAt === 0; k++) {
      const sent = Date.now();
      if (sent - killedAt > 90_000) throw new Error(`the REST API did not accept a trigger within 90 s of the kill: ${answers.map((a) => a.status).join(" ")}`);
      const res = await fetch(`${stack.webUiUrl}/api/v1/dags/${HA_DAG_ID}/dagRuns`, {
        method: "POST",
        headers: { ...AUTH, "content-type": "application/json", "Idempotency-Key": `ha-api-${k}` },
        body: JSON.stringify({ conf: {} }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status !== 200 && res.status !== 503) throw new Error(`REST API answered ${res.status}: ${text.slice(0, 300)}`);
      answers.push({ status: res.status, seconds: (Date.now() - sent) / 1000, atMs: sent - killedAt });
      if (res.status === 200) {
        triggered++;
        if (!apiBackAt) apiBackAt = Date.now();
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const newPrimaryPort = await promotion;
    say(`sentinels promoted ${newPrimaryPort} after ${promotedAt - killedAt} ms; REST API accepted again after ${apiBackAt - killedAt} ms`);

    await waitFor(
      async () => {
        const r = await countRuns(pool, HA_DAG_ID);
        return r.runs >= triggered && r.unfinishedRuns === 0 && r.stuckTasks === 0;
      },
      { timeoutMs: 240_000, intervalMs: 500, what: "every run ended" },
    ).catch(() => undefined);
    const settledS = (Date.now() - killedAt) / 1000;
    const runs = await countRuns(pool, HA_DAG_ID);
    const diagnosis =
      runs.unfinishedRuns > 0
        ? {
            taskStates: await taskStates(pool, HA_DAG_ID),
            services: Object.fromEntries(["scheduler", "worker-1", "worker-2"].map((n) => [n, serviceLines(stack.output(n))])),
            redis: await redisState(sentinels, o.label).catch((e: Error) => ({ unreadable: e.message })),
          }
        : undefined;
    return {
      runs,
      diagnosis,
      triggered,
      promotionMs: promotedAt - killedAt,
      apiBackMs: apiBackAt - killedAt,
      answers,
      settledS,
      oldPrimaryPort,
      newPrimaryPort,
    };
  } finally {
    keepLogs((n) => stack.output(n), ["scheduler", "worker-1", "worker-2", "web-ui"]);
    await stack.stop();
    await pool.end();
    await sentinels.stop();
  }
}
