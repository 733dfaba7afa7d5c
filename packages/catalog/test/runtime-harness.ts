import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import type { DagRunRow, TaskInstanceRow } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder, type EngineRuntime } from "@svc/engine";
import { sharedSshPool } from "@svc/host";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, startSshd, waitFor, type TestDb, type TestRedis, type TestSshd } from "@svc/testing";
import { CATALOG_PATHS } from "../src/paths";

/** The real catalogue on the real scheduler and worker, the host reached over SSH on 127.0.0.1. */
export interface CatalogueRuntime {
  config: SvcConfig;
  api: ReturnType<typeof createEngineApi>;
  sshd: TestSshd;
  tdb: TestDb;
  /** Trigger a run and wait for it to finish; returns the run, its task states and the time it took. */
  run(dagId: string, conf: Record<string, unknown>, timeoutMs: number): Promise<{ run: DagRunRow; states: Record<string, string>; seconds: number }>;
  tis(dagId: string, runId: string): Promise<Record<string, TaskInstanceRow>>;
  logs(dagId: string, runId: string, taskId: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Options: extra environment for the config (VM images and disks, SSH). */
export async function startCatalogueRuntime(label: string, env: Record<string, string> = {}): Promise<CatalogueRuntime> {
  const tdb = await createTestDb(label);
  const redis: TestRedis = createTestRedis(label);
  const sshd = await startSshd();
  const base = loadConfig({
    DATABASE_URL: tdb.url,
    REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: redis.prefix,
    SVC_LOG_LEVEL: "silent",
    SVC_DAGS_DIR: CATALOG_PATHS.dagsDir,
    SVC_PLAYBOOKS_DIR: CATALOG_PATHS.playbooksDir,
    SVC_SSH_HOST: sshd.host,
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_USER: sshd.user,
    SVC_SSH_KEY_PATH: sshd.keyPath,
    SVC_SSH_KNOWN_HOSTS: sshd.knownHostsPath,
    ...env,
  });
  const config: SvcConfig = {
    ...base,
    reconcileIntervalMs: 1000,
    worker: { ...base.worker, concurrency: 2, heartbeatMs: 500, zombieAfterMs: 60_000 },
  };
  const queues: Queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const catalog = defaultOperators();
  const notifier = createQueueNotifier(queues);
  const api = createEngineApi({ db: tdb.db, notifier, dagsDir: config.dagsDir, catalog, settings: dagSettingsFromConfig(config) });
  const report = await syncDagFolder({ db: tdb.db, dagsDir: config.dagsDir, catalog, settings: dagSettingsFromConfig(config), notifier });
  if (report.errors.length) throw new Error(`catalogue import errors: ${JSON.stringify(report.errors)}`);
  const runtime: EngineRuntime = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators() });

  const tis = async (dagId: string, runId: string) => {
    const rows = await tdb.db.selectFrom("task_instance").selectAll().where("dag_id", "=", dagId).where("run_id", "=", runId).execute();
    return Object.fromEntries(rows.map((r) => [r.task_id, r]));
  };
  return {
    config,
    api,
    sshd,
    tdb,
    tis,
    async run(dagId, conf, timeoutMs) {
      await api.setPaused(dagId, false);
      const started = Date.now();
      const created = await api.triggerDagRun(dagId, { conf });
      const run = await waitFor(
        async () => {
          const r = await tdb.db.selectFrom("dag_run").selectAll().where("dag_id", "=", dagId).where("run_id", "=", created.dag_run_id).executeTakeFirst();
          return r && (r.state === "success" || r.state === "failed") ? r : undefined;
        },
        { timeoutMs, intervalMs: 500, what: `${dagId} run ${created.dag_run_id}` },
      );
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      const states = Object.fromEntries(Object.entries(await tis(dagId, run.run_id)).map(([k, v]) => [k, v.state as string]));
      // A failed task's log tail, so a failing test says why.
      for (const [taskId, state] of Object.entries(states)) {
        if (state !== "failed") continue;
        const rows = await tdb.db
          .selectFrom("task_log")
          .select("line")
          .where("dag_id", "=", dagId)
          .where("run_id", "=", run.run_id)
          .where("task_id", "=", taskId)
          .orderBy("id")
          .execute();
        note(
          `${dagId} ${taskId} failed; log tail:\n${rows
            .slice(-25)
            .map((r) => `  ${r.line}`)
            .join("\n")}`,
        );
      }
      return { run, states, seconds };
    },
    async logs(dagId, runId, taskId) {
      const rows = await tdb.db.selectFrom("task_log").select("line").where("dag_id", "=", dagId).where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute();
      return rows.map((r) => r.line);
    },
    async close() {
      await runtime.stop().catch(() => undefined);
      // The host operators reach the host through the process-wide SSH pool.
      await sharedSshPool().closeAll();
      await queues.close();
      await redis.cleanup();
      await tdb.drop();
      await sshd.stop();
    },
  };
}

/** Where a test run's measured durations are printed (the report quotes them). */
export function note(line: string): void {
  process.stdout.write(`[catalog] ${line}\n`);
}

export const REPO_ROOT = path.resolve(CATALOG_PATHS.dagsDir, "..");
