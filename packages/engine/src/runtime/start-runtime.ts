import { randomBytes } from "node:crypto";
import os from "node:os";
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import { AlreadyExistsError } from "@svc/errors";
import { createLogger, type Logger } from "@svc/logger";
import { createQueues } from "@svc/queue";
import { createEngineApi } from "../api/engine-api";
import { createQueueNotifier } from "../notifier";
import type { HostRouting, OperatorRegistry } from "../ports";
import type { RuntimeDeps } from "./deps";
import { startScheduler, type EngineScheduler } from "./scheduler";
import { dagSettingsFromConfig } from "./settings";
import { startWorker, type EngineWorker } from "./worker";

export interface EngineRuntimeOptions {
  db: Db;
  /** The parsed config (loadConfig at the entry point). Fields below override it. */
  config: SvcConfig;
  redisUrl?: string;
  prefix?: string;
  dagsDir?: string;
  databaseUrl?: string;
  workerConcurrency?: number;
  reconcileIntervalMs?: number;
  zombieAfterMs?: number;
  heartbeatMs?: number;
  /** The operators the worker runs and the DAG processor validates against (the services pass the product's, defaultOperators()). */
  operators: OperatorRegistry;
  logger?: Logger;
  /** Start a scheduler and/or a worker (default both). */
  scheduler?: boolean;
  worker?: boolean;
  /** The worker's hypervisor hosts (@svc/hosts' createHostRouting); absent: the configured host only. */
  hosts?: HostRouting;
}

export interface EngineRuntime {
  scheduler?: EngineScheduler;
  worker?: EngineWorker;
  config: SvcConfig;
  stop(): Promise<void>;
}

/** Unique id of one scheduler/worker process for heartbeats and claims. */
export const newInstanceId = (component: string): string => `${component}-${os.hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;

/** Run a scheduler and a worker in this process (development, tests, benchmarks). */
export function startEngineRuntime(o: EngineRuntimeOptions): EngineRuntime {
  const base = o.config;
  const config: SvcConfig = {
    ...base,
    databaseUrl: o.databaseUrl ?? base.databaseUrl,
    redisUrl: o.redisUrl ?? base.redisUrl,
    redisPrefix: o.prefix ?? base.redisPrefix,
    dagsDir: o.dagsDir ?? base.dagsDir,
    reconcileIntervalMs: o.reconcileIntervalMs ?? base.reconcileIntervalMs,
    worker: {
      ...base.worker,
      concurrency: o.workerConcurrency ?? base.worker.concurrency,
      heartbeatMs: o.heartbeatMs ?? base.worker.heartbeatMs,
      zombieAfterMs: o.zombieAfterMs ?? base.worker.zombieAfterMs,
    },
  };
  const logger = o.logger ?? createLogger("engine", config.logLevel, config.logFormat);
  const queues = createQueues({ url: config.redisUrl, prefix: config.redisPrefix });
  const notifier = createQueueNotifier(queues, (e) => logger.warn({ err: String(e) }, "notify failed"));
  const operators = o.operators;
  const deps = (component: string): RuntimeDeps => ({ db: o.db, queues, notifier, logger: logger.child({ component }), config, operators, instanceId: newInstanceId(component) });
  const api = createEngineApi({
    db: o.db,
    notifier,
    dagsDir: config.dagsDir,
    catalog: operators,
    settings: dagSettingsFromConfig(config),
    cloudApproval: config.placement.cloudApproval,
    logger,
  });

  const scheduler =
    o.scheduler === false
      ? undefined
      : startScheduler(deps("scheduler"), {
          triggerScheduled: async (dagId, runId, logicalDate) => {
            await api.triggerDagRun(dagId, { runId, logicalDate: logicalDate.toISOString(), runType: "scheduled" }).catch((e) => {
              if (!(e instanceof AlreadyExistsError)) throw e;
            });
          },
        });
  const worker = o.worker === false ? undefined : startWorker({ ...deps("worker"), ...(o.hosts ? { hosts: o.hosts } : {}) });
  let stopping: Promise<void> | undefined;
  return {
    scheduler,
    worker,
    config,
    // Idempotent: a second stop waits for the first.
    stop() {
      stopping ??= (async () => {
        await worker?.close(config.limits.stopGraceMs);
        await scheduler?.close();
        await queues.close();
      })();
      return stopping;
    },
  };
}
