import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./stack";

/** The engine's env for a test: its own database, Redis prefix and DAGs folder, quiet logs. */
export function engineTestEnv(db: { url: string }, redis: { url: string; prefix: string }, dagsDir: string): Record<string, string> {
  return { DATABASE_URL: db.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" };
}

/** A fresh work folder with dags/ (holding the shipped vm_deployment.yaml) and inventory/. */
export function vmDeploymentWork(label: string): { work: string; dagsDir: string } {
  const work = mkdtempSync(path.join(os.tmpdir(), `svc-${label}-`));
  const dagsDir = path.join(work, "dags");
  execFileSync("mkdir", ["-p", dagsDir, path.join(work, "inventory")]);
  copyFileSync(path.join(REPO_ROOT, "dags/vm_deployment.yaml"), path.join(dagsDir, "vm_deployment.yaml"));
  return { work, dagsDir };
}
