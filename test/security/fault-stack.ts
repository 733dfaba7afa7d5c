// Services as child processes on a test's own database and Redis, for the fault tests: each one
// started on demand (with its own extra environment), health-checked, and stopped at the end.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb, ensureDatabase, type Db } from "@svc/db";
import { migrateDatabase } from "@svc/engine-sql";
import { createEngineApi, createQueueNotifier, syncDagFolder, type EngineApi } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { freePort, startRedisServer, waitFor, type OwnRedis } from "@svc/testing";
import { startOwnPostgres, type OwnPostgres } from "../../bench/chaos/own-postgres";
import { serviceProc, type ServiceProc } from "../../bench/chaos/service-proc";

const ROOT = path.resolve(__dirname, "../..");
export const TOKEN = "fault-token";
export const AUTH = { Authorization: `Bearer ${TOKEN}` };

export type Service = "scheduler" | "worker" | "orchestrator" | "web-ui" | "assistant-api";

export interface FaultStack {
  db: Db;
  /** The engine API on the stack's database and queues (triggers as the REST API does). */
  api: EngineApi;
  dir: string;
  webUiUrl: string;
  assistantUrl: string;
  /** Start a service process (extra environment on top of the stack's); resolves once it is up. */
  start(name: string, service: Service, extraEnv?: NodeJS.ProcessEnv): Promise<ServiceProc>;
  /** What a service printed so far. */
  output(name: string): string;
  /** SIGTERM to a service; resolves with the seconds it took to exit (SIGKILL after `killAfterMs`). */
  terminate(name: string, killAfterMs?: number): Promise<number>;
  stop(): Promise<void>;
}

/** `databaseUrl` may name a database that does not exist yet (it is created and migrated here). */
export async function startFaultStack(o: { label: string; databaseUrl: string; redisUrl: string; dags: Record<string, string>; env?: NodeJS.ProcessEnv }): Promise<FaultStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `svc-${o.label}-`));
  const dagsDir = path.join(dir, "dags");
  mkdirSync(dagsDir);
  for (const [name, text] of Object.entries(o.dags)) writeFileSync(path.join(dagsDir, `${name}.yaml`), text);
  await ensureDatabase(o.databaseUrl);
  const db = createDb(o.databaseUrl, { max: 3, connectTimeoutMs: 2000 });
  const { error } = await migrateDatabase(db);
  if (error) throw error;
  const report = await syncDagFolder({ db, dagsDir, catalog: defaultOperators() });
  if (report.errors.length) throw new Error(`DAG errors: ${JSON.stringify(report.errors)}`);
  for (const dagId of Object.keys(o.dags)) await db.updateTable("dag").set({ is_paused: false }).where("dag_id", "=", dagId).execute();

  const queues = createQueues({ url: o.redisUrl, prefix: o.label });
  const api = createEngineApi({ db, notifier: createQueueNotifier(queues), dagsDir, catalog: defaultOperators() });

  const webUiPort = await freePort();
  const assistantPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: process.env.LANG,
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    SVC_REDIS_PREFIX: o.label,
    SVC_DAGS_DIR: dagsDir,
    SVC_DOCS_DIR: path.join(ROOT, "docs"),
    SVC_PLAYBOOKS_DIR: path.join(ROOT, "playbooks"),
    SVC_LOG_LEVEL: "info",
    SVC_LOG_FORMAT: "json",
    SVC_API_TOKEN: TOKEN,
    SVC_BIND_HOST: "127.0.0.1",
    SVC_WEB_UI_PORT: String(webUiPort),
    SVC_ASSISTANT_PORT: String(assistantPort),
    SVC_WORKER_CONCURRENCY: "1",
    SVC_WORKER_HEARTBEAT_MS: "500",
    SVC_RECONCILE_INTERVAL_MS: "1000",
    SVC_INVENTORY_DIR: path.join(dir, "inventory"),
    SVC_VM_IMAGES_DIR: path.join(dir, "images"),
    SVC_VM_DISKS_DIR: path.join(dir, "vms"),
    ...o.env,
  };
  const webUiUrl = `http://127.0.0.1:${webUiPort}`;
  const assistantUrl = `http://127.0.0.1:${assistantPort}`;
  const procs = new Map<string, ServiceProc>();
  const logOf = (name: string) => path.join(dir, `${name}.log`);
  const up = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => undefined))?.ok;
  const heartbeat = async (pid: number) => !!(await db.selectFrom("component_heartbeat").select("pid").where("pid", "=", pid).executeTakeFirst());

  const stack: FaultStack = {
    db,
    api,
    dir,
    webUiUrl,
    assistantUrl,
    async start(name, service, extraEnv = {}) {
      const p = serviceProc(name, service, { ...env, ...extraEnv }, logOf(name));
      procs.set(name, p);
      p.start();
      const pid = p.pid()!;
      const ready = service === "web-ui" ? () => up(`${webUiUrl}/api/v1/health`) : service === "assistant-api" ? () => up(`${assistantUrl}/health`) : () => heartbeat(pid);
      await waitFor(ready, { timeoutMs: 60_000, intervalMs: 200, what: `${name} up` });
      return p;
    },
    output: (name) => {
      try {
        return readFileSync(logOf(name), "utf8");
      } catch {
        return "";
      }
    },
    async terminate(name, killAfterMs = 60_000) {
      const t0 = Date.now();
      await procs.get(name)!.stop(killAfterMs);
      return (Date.now() - t0) / 1000;
    },
    async stop() {
      await Promise.all([...procs.values()].map((p) => p.stop(5000)));
      await queues.close();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}

/** A fault stack on a Postgres cluster and a redis-server of its own, which the test may stop and start. */
export interface OwnFaultStack {
  pg: OwnPostgres;
  redis: OwnRedis;
  stack: FaultStack;
  /** Stop the services, then the servers, and remove the cluster. */
  close(): Promise<void>;
}

export async function startOwnFaultStack(o: { label: string; dags: Record<string, string>; env?: NodeJS.ProcessEnv }): Promise<OwnFaultStack> {
  const pg = await startOwnPostgres();
  const redis = await startRedisServer();
  const stack = await startFaultStack({ ...o, databaseUrl: pg.url.replace(/\/postgres$/, `/svc_${o.label}`), redisUrl: redis.url });
  return {
    pg,
    redis,
    stack,
    async close() {
      await stack.stop();
      await redis.stop();
      await pg.remove();
    },
  };
}
