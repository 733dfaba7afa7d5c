import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort, waitFor } from "@svc/testing";
import { serviceProc, type ServiceProc } from "../chaos/service-proc";
import { startNginx } from "./nginx";

const ROOT = path.resolve(__dirname, "../..");

export interface Stack {
  env: NodeJS.ProcessEnv;
  dagsDir: string;
  scheduler: ServiceProc;
  workers: ServiceProc[];
  /** Every service process (workers as they are now). */
  services(): ServiceProc[];
  nginxUrl: string;
  /** Replace the workers by `n` new ones (each with the stack's concurrency). */
  setWorkers(n: number): Promise<void>;
  stop(): Promise<void>;
}

/** All services as child processes on the given database and Redis prefix, nginx in front. */
export async function startStack(o: {
  dir: string;
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  workers: number;
  concurrency: number;
  extraDags: Record<string, string>;
  /** Each service writes a V8 CPU profile here when it exits (node --cpu-prof). */
  cpuProfDir?: string;
}): Promise<Stack> {
  const dagsDir = path.join(o.dir, "dags");
  mkdirSync(dagsDir, { recursive: true });
  for (const f of readdirSync(path.join(ROOT, "dags")).filter((f) => f.endsWith(".yaml"))) copyFileSync(path.join(ROOT, "dags", f), path.join(dagsDir, f));
  for (const [name, text] of Object.entries(o.extraDags)) writeFileSync(path.join(dagsDir, `${name}.yaml`), text);
  const assistantPort = await freePort();
  const webUiPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    USER: process.env.USER,
    LANG: process.env.LANG,
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    SVC_REDIS_PREFIX: o.prefix,
    SVC_DAGS_DIR: dagsDir,
    SVC_DOCS_DIR: path.join(ROOT, "docs"),
    SVC_PLAYBOOKS_DIR: path.join(ROOT, "playbooks"),
    SVC_LOG_LEVEL: "warn",
    SVC_LOG_FORMAT: "json",
    SVC_WORKER_CONCURRENCY: String(o.concurrency),
    SVC_BIND_HOST: "127.0.0.1",
    SVC_ASSISTANT_PORT: String(assistantPort),
    SVC_WEB_UI_PORT: String(webUiPort),
    SVC_WORKFLOW_UI_URL: "http://127.0.0.1",
    SVC_INVENTORY_DIR: path.join(o.dir, "inventory"),
    SVC_VM_IMAGES_DIR: path.join(o.dir, "images"),
    SVC_VM_DISKS_DIR: path.join(o.dir, "vms"),
  };
  const log = (n: string) => path.join(o.dir, `${n}.log`);
  const prof = (name: string) => (o.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(o.cpuProfDir)}`, `--cpu-prof-name=${name}.${Date.now()}.cpuprofile`] : []);
  const proc = (name: string, service: string) => serviceProc(name, service, env, log(name), prof(name));
  const scheduler = proc("scheduler", "scheduler");
  const fixed = [proc("orchestrator", "orchestrator"), proc("web-ui", "web-ui"), proc("assistant-api", "assistant-api")];
  let workers: ServiceProc[] = [];
  let made = 0;
  const newWorkers = (n: number) => Array.from({ length: n }, () => proc(`worker-${++made}`, "worker"));
  // The database is already migrated: every service starts at once.
  workers = newWorkers(o.workers);
  for (const p of [scheduler, ...workers, ...fixed]) p.start();
  await waitFor(async () => (await fetch(`http://127.0.0.1:${assistantPort}/health`, { signal: AbortSignal.timeout(2000) })).status === 200, {
    timeoutMs: 120000,
    intervalMs: 500,
    what: "assistant API healthy",
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${webUiPort}/api/v1/health`, { signal: AbortSignal.timeout(2000) })).status === 200, {
    timeoutMs: 120000,
    intervalMs: 500,
    what: "web UI healthy",
  });
  const nginx = await startNginx(path.join(o.dir, "nginx"), assistantPort, webUiPort);
  const stack: Stack = {
    env,
    dagsDir,
    scheduler,
    get workers() {
      return workers;
    },
    services: () => [scheduler, ...workers, ...fixed],
    nginxUrl: `http://127.0.0.1:${nginx.port}`,
    async setWorkers(n) {
      await Promise.all(workers.map((w) => w.stop(10000)));
      workers = newWorkers(n);
      for (const w of workers) w.start();
    },
    async stop() {
      await nginx.stop();
      await Promise.all(stack.services().map((p) => p.stop(10000)));
    },
  };
  return stack;
}
