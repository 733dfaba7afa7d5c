import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, startEngineRuntime, syncDagFolder, type EngineRuntime } from "@svc/engine";
import { createQueues } from "@svc/queue";
import { waitFor } from "@svc/testing";
import { createHostRouting } from "@svc/hosts/routing";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { REPO_ROOT } from "./stack";

type EngineApi = ReturnType<typeof createEngineApi>;

/** The engine's env for a test: its own database, Redis prefix and DAGs folder, quiet logs. */
export function engineTestEnv(db: { url: string }, redis: { url: string; prefix: string }, dagsDir: string): Record<string, string> {
  return { DATABASE_URL: db.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" };
}

/** A fresh work folder with dags/ (holding the shipped vm_deployment.yaml) and inventory/. */
export function vmDeploymentWork(label: string): { work: string; dagsDir: string } {
  const work = mkdtempSync(path.join(os.tmpdir(), `svc-${label}-`));
  const dagsDir = path.join(work, "dags");
  mkdirSync(dagsDir, { recursive: true });
  mkdirSync(path.join(work, "inventory"), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, "dags/vm_deployment.yaml"), path.join(dagsDir, "vm_deployment.yaml"));
  return { work, dagsDir };
}

type CloudDriverOf = Parameters<typeof createHostRouting>[0]["cloudDriver"];

/** The scheduler and a worker routed over every host, cloud hosts through `cloudDriver` (as the worker's main wires it). */
export async function startCloudEngine(db: Db, config: SvcConfig, cloudDriver: CloudDriverOf): Promise<{ stop(): Promise<void> }> {
  const routing = createHostRouting({ db, logger: silentLogger(), hosts: "all", probeIntervalMs: 2000, cloudDriver });
  await routing.ready();
  const runtimes: EngineRuntime[] = [
    startEngineRuntime({ db, config, logger: silentLogger(), operators: defaultOperators(), worker: false }),
    startEngineRuntime({ db, config, logger: silentLogger(), operators: defaultOperators(), scheduler: false, hosts: routing }),
  ];
  return {
    async stop() {
      for (const rt of runtimes) await rt.stop().catch(() => undefined);
      await routing.close().catch(() => undefined);
    },
  };
}

/** vm_deployment's engine for a cloud e2e file: the DAG folder synced and unpaused, the scheduler and a routed worker, and readers of a run. */
export interface VmDeploymentEngine {
  api: EngineApi;
  /** Trigger vm_deployment with `conf`; resolves to the run's end state, success or failed. */
  run(runId: string, conf: Record<string, unknown>, timeoutMs?: number): Promise<string>;
  /** Wait for a run triggered elsewhere (over REST) to end. */
  ended(runId: string, timeoutMs?: number): Promise<string>;
  /** One task instance of a run: its state, output and host. */
  ti(runId: string, taskId: string): Promise<{ state: string | null; output: unknown; host: string | null }>;
  /** A task's log lines, in order. */
  logOf(runId: string, taskId: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startVmDeploymentEngine(
  db: Db,
  config: SvcConfig,
  redis: { url: string; prefix: string },
  dagsDir: string,
  cloudDriver: CloudDriverOf,
): Promise<VmDeploymentEngine> {
  const queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const operators = defaultOperators();
  const settings = dagSettingsFromConfig(config);
  await syncDagFolder({ db, dagsDir, catalog: operators, settings, notifier: createQueueNotifier(queues) });
  const api = createEngineApi({ db, notifier: createQueueNotifier(queues), dagsDir, catalog: operators, settings });
  await api.setPaused("vm_deployment", false);
  const engine = await startCloudEngine(db, config, cloudDriver);
  const ended = (runId: string, timeoutMs = 180_000) =>
    waitFor(
      async () => {
        const r = await db.selectFrom("dag_run").select("state").where("dag_id", "=", "vm_deployment").where("run_id", "=", runId).executeTakeFirst();
        return r && (r.state === "success" || r.state === "failed") ? r.state : undefined;
      },
      { timeoutMs, what: `run ${runId}` },
    );
  return {
    api,
    ended,
    async run(runId, conf, timeoutMs) {
      await api.triggerDagRun("vm_deployment", { runId, conf });
      return ended(runId, timeoutMs);
    },
    ti: (runId, taskId) =>
      db
        .selectFrom("task_instance")
        .select(["state", "output", "host"])
        .where("dag_id", "=", "vm_deployment")
        .where("run_id", "=", runId)
        .where("task_id", "=", taskId)
        .executeTakeFirstOrThrow(),
    logOf: async (runId, taskId) =>
      (await db.selectFrom("task_log").select("line").where("dag_id", "=", "vm_deployment").where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute()).map(
        (r) => r.line,
      ),
    async stop() {
      await engine.stop();
      await queues.close();
    },
  };
}
