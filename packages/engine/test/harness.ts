import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import type { DagRunRow, Db, TaskInstanceRow } from "@svc/db";
import { silentLogger } from "@svc/logger";
import { builtinOperators } from "./fixtures/operators";
import type { OperatorRegistry } from "../src/ports";
import { createQueues, createRedis, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, waitFor, type TestDb } from "@svc/testing";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder, type EngineRuntime } from "../src";
import { type EngineScheduler } from "../src/runtime/scheduler";
import { type HostRouting } from "../src/ports/host-routing";
import { type RuntimeDeps } from "../src/runtime/deps";

export interface Harness {
  db: Db;
  tdb: TestDb;
  dagsDir: string;
  config: SvcConfig;
  queues: Queues;
  api: ReturnType<typeof createEngineApi>;
  writeDag(file: string, yaml: string): void;
  sync(): Promise<unknown>;
  startRuntime(extra?: {
    worker?: boolean;
    scheduler?: boolean;
    workerConcurrency?: number;
    reconcileIntervalMs?: number;
    operators?: OperatorRegistry;
    hosts?: HostRouting;
  }): EngineRuntime;
  /** The first in-process scheduler started by startRuntime. */
  scheduler(): EngineScheduler;
  waitRun(dagId: string, runId: string, states?: string[], timeoutMs?: number): Promise<DagRunRow>;
  tis(dagId: string, runId: string): Promise<Record<string, TaskInstanceRow>>;
  logs(dagId: string, runId: string, taskId: string, tryNumber?: number): Promise<string[]>;
  /** The ids of the jobs added to the tasks queue so far, from its event stream (BullMQ's "added" events). */
  addedTaskJobs(): Promise<string[]>;
  /** The ids of the tasks queue's jobs that had BullMQ's `event` ("added", "stalled", …), from its event stream. */
  taskJobEvents(event: string): Promise<string[]>;
  /** A scheduler's or worker's deps (the harness's database, queues, config and operators) under `instanceId`, with `extra` over them. */
  runtimeDeps(instanceId: string, extra?: Partial<RuntimeDeps>): RuntimeDeps;
  close(): Promise<void>;
}

/** An isolated engine for one test file: own database, Redis prefix, DAG folder; fast timings. */
export async function createHarness(label: string, opts: { redisUrl?: string; operators?: OperatorRegistry } = {}): Promise<Harness> {
  const tdb = await createTestDb(label);
  const redis = createTestRedis(label);
  const redisUrl = opts.redisUrl ?? redis.url;
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), `svc-dags-${label}-`));
  const loaded = loadConfig({ DATABASE_URL: tdb.url, REDIS_URL: redisUrl, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" });
  const config: SvcConfig = { ...loaded, reconcileIntervalMs: 500, worker: { ...loaded.worker, concurrency: 4, heartbeatMs: 200, zombieAfterMs: 1500 } };
  const queues = createQueues({ url: redisUrl, prefix: redis.prefix });
  const notifier = createQueueNotifier(queues);
  const catalog = opts.operators ?? builtinOperators();
  const api = createEngineApi({ db: tdb.db, notifier, dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  const runtimes: EngineRuntime[] = [];
  const h: Harness = {
    db: tdb.db,
    tdb,
    dagsDir,
    config,
    queues,
    api,
    writeDag: (file, yaml) => writeFileSync(path.join(dagsDir, file), yaml),
    sync: () => syncDagFolder({ db: tdb.db, dagsDir, catalog, settings: dagSettingsFromConfig(config), notifier }),
    startRuntime(extra = {}) {
      const rt = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), ...extra, operators: extra.operators ?? builtinOperators() });
      runtimes.push(rt);
      return rt;
    },
    scheduler() {
      const s = runtimes.find((r) => r.scheduler)?.scheduler;
      if (!s) throw new Error("no scheduler started");
      return s;
    },
    async waitRun(dagId, runId, states = ["success", "failed"], timeoutMs = 30000) {
      return waitFor(
        async () => {
          const r = await tdb.db.selectFrom("dag_run").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).executeTakeFirst();
          return r && states.includes(r.state) ? r : undefined;
        },
        { timeoutMs, what: `run ${dagId}/${runId} in ${states.join("|")}` },
      );
    },
    async tis(dagId, runId) {
      const rows = await tdb.db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
      return Object.fromEntries(rows.map((r) => [r.task_id, r]));
    },
    async logs(dagId, runId, taskId, tryNumber) {
      // Through the engine API, as people read them (an instant try's line is rebuilt there).
      const ti = await tdb.db
        .selectFrom("task_instance")
        .select("try_number")
        .where("dag_id", "=", dagId)
        .where("run_id", "=", runId)
        .where("task_id", "=", taskId)
        .executeTakeFirst();
      const tries = tryNumber !== undefined ? [tryNumber] : Array.from({ length: ti?.try_number ?? 0 }, (_, i) => i + 1);
      const lines: string[] = [];
      for (const n of tries) {
        const { content } = await api.getTaskLog(dagId, runId, taskId, n, { fullContent: true });
        lines.push(
          ...content
            .split("\n")
            .filter(Boolean)
            .map((l) => l.replace(/^\[[^\]]*\] \{[^}]*\} /, "")),
        );
      }
      return lines;
    },
    runtimeDeps: (instanceId, extra = {}) => ({
      db: tdb.db,
      queues,
      notifier: createQueueNotifier(queues),
      logger: silentLogger(),
      config,
      operators: catalog,
      instanceId,
      ...extra,
    }),
    addedTaskJobs: () => h.taskJobEvents("added"),
    async taskJobEvents(event) {
      const r = createRedis(redisUrl);
      try {
        const events = await r.xrange(`${redis.prefix}:tasks:events`, "-", "+");
        return events.filter(([, f]) => f[f.indexOf("event") + 1] === event).map(([, f]) => f[f.indexOf("jobId") + 1]!);
      } finally {
        r.disconnect();
      }
    },
    async close() {
      for (const rt of runtimes) await rt.stop().catch(() => undefined);
      await queues.close();
      await redis.cleanup();
      await tdb.drop();
      rmSync(dagsDir, { recursive: true, force: true });
    },
  };
  return h;
}

/**
 * A harness with a parent and a child DAG (child.yaml, parent.yaml), both unpaused, on ONE worker
 * slot: a parent task that held its slot while it waited would leave none for the child's tasks.
 */
export async function parentChildHarness(label: string, childDag: string, parentDag: string): Promise<Harness> {
  const h = await createHarness(label);
  h.writeDag("child.yaml", childDag);
  h.writeDag("parent.yaml", parentDag);
  await h.sync();
  await h.api.setPaused("parent", false);
  await h.api.setPaused("child", false);
  h.startRuntime({ workerConcurrency: 1 });
  return h;
}
