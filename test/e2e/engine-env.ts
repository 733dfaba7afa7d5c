import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import { startEngineRuntime, type EngineRuntime } from "@svc/engine";
import { createHostRouting } from "@svc/hosts/routing";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { REPO_ROOT } from "./stack";

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
