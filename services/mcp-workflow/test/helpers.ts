import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { loadConfig, type SvcConfig } from "@svc/config";
import { dagSettingsFromConfig, startEngineRuntime, syncDagFolder, type EngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createTestDb, createTestRedis, freePort, waitFor, type TestDb, type TestRedis } from "@svc/testing";

export const BIN = path.resolve(__dirname, "../bin/svc-mcp-workflow");
export const TOKEN = "mcp-test-token-0123456789";

/** A three-task no-op DAG (runs in well under a second). */
export const NOOP_DAG = `dag_id: noop_chain
description: Three no-op tasks in a row
tags: [test, demo]
tasks:
  - task_id: first
    operator: noop
  - task_id: second
    operator: noop
    depends_on: [first]
  - task_id: third
    operator: noop
    depends_on: [second]
`;

/** A DAG whose vm_name param is pattern-checked (a path must be refused). */
export const VM_DAG = `dag_id: vm_like
description: Create a VM (no-op stand-in)
tags: [vm]
params:
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]{0,62}$"}
tasks:
  - task_id: create
    operator: noop
`;

/** A DAG whose first task fails (no retries) after logging a reason; the second never runs. */
export const FAIL_DAG = `dag_id: fail_chain
description: Fails on purpose
tags: [test]
tasks:
  - task_id: boom
    operator: fail
    args: {message: "disk full on /var/lib/svc"}
  - task_id: after
    operator: noop
    depends_on: [boom]
`;

/** The real engine for one test file: own database, Redis prefix, DAG folder; scheduler and worker in process. */
export interface Stack {
  tdb: TestDb;
  redis: TestRedis;
  dagsDir: string;
  config: SvcConfig;
  /** Environment for a spawned tool server pointing at this stack. */
  env: Record<string, string>;
  runtime: EngineRuntime;
  close(): Promise<void>;
}

export async function startStack(label: string, extraDags: Record<string, string> = {}): Promise<Stack> {
  const tdb = await createTestDb(label);
  const redis = createTestRedis(label);
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), `svc-mcp-${label}-`));
  writeFileSync(path.join(dagsDir, "noop_chain.yaml"), NOOP_DAG);
  writeFileSync(path.join(dagsDir, "vm_like.yaml"), VM_DAG);
  for (const [file, yaml] of Object.entries(extraDags)) writeFileSync(path.join(dagsDir, file), yaml);
  const env = { DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "warn" };
  const loaded = loadConfig({ ...env, SVC_LOG_LEVEL: "silent" });
  const config: SvcConfig = { ...loaded, reconcileIntervalMs: 500, worker: { ...loaded.worker, concurrency: 4, heartbeatMs: 200, zombieAfterMs: 1500 } };
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: defaultOperators(), settings: dagSettingsFromConfig(config) });
  await tdb.db.updateTable("dag").set({ is_paused: false }).execute();
  const runtime = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators() });
  return {
    tdb,
    redis,
    dagsDir,
    config,
    env,
    runtime,
    async close() {
      await runtime.stop().catch(() => undefined);
      await redis.cleanup();
      await tdb.drop();
      rmSync(dagsDir, { recursive: true, force: true });
    },
  };
}

function childEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...extra };
}

/** The SDK's client over stdio, spawning the bin. */
export async function connectStdio(env: Record<string, string>, name = "test-stdio"): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: BIN, args: ["--stdio"], env: childEnv(env), stderr: "ignore" }));
  return client;
}

/** The bin serving Streamable HTTP on a spare port; resolves once /health answers. */
export async function spawnHttp(env: Record<string, string>, bin = BIN): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(bin, ["--http", "--port", String(port)], { env: childEnv(env), stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${stderr}`);
      return fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
    },
    { timeoutMs: 30_000, what: "mcp http health" },
  );
  return {
    url: `${base}/mcp`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The SDK's client over Streamable HTTP with the bearer token. */
export async function connectHttp(url: string, token = TOKEN): Promise<Client> {
  const client = new Client({ name: "test-http", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/**
 * Progress notifications as the client's transport receives them, for the calls made while `fn`
 * runs. Counted on the wire: the SDK client hands notifications to `onprogress` a tick after
 * responses, so one read together with the answer can miss the callback.
 */
export async function progressOnTheWire<T>(client: Client, fn: () => Promise<T>): Promise<{ result: T; progress: { progress: number; total?: number; message?: string }[] }> {
  const transport = client.transport;
  if (!transport) throw new Error("client not connected");
  const inner = transport.onmessage;
  const progress: { progress: number; total?: number; message?: string }[] = [];
  transport.onmessage = (m, extra) => {
    if ("method" in m && m.method === "notifications/progress") progress.push(m.params as { progress: number; total?: number; message?: string });
    inner?.(m, extra);
  };
  try {
    return { result: await fn(), progress };
  } finally {
    transport.onmessage = inner;
  }
}

/** What a tool call answers, as the tests read it. */
export type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

/** svc-vm of this checkout, the VM CLI the tools run. */
export const VM_CLI = path.resolve(__dirname, "../../../packages/vm/bin/svc-vm");

/** The VM workflow's params (with host) and a no-op task, with these defaults: the tools' path through it without touching a host. */
export const vmDeploymentDag = (d: { image: string; memory_mb: number; disk_gb: number }) => `dag_id: vm_deployment
description: Create or delete a VM (no-op stand-in)
tags: [vm]
params:
  action: {type: string, enum: [create, delete], default: create}
  vm_name: {type: string, pattern: "^([a-z][a-z0-9-]{0,62})?$", default: ""}
  image: {type: string, pattern: "^[a-z0-9][a-z0-9._-]{0,62}$", default: "${d.image}"}
  cpus: {type: integer, minimum: 1, maximum: 64, default: 2}
  memory_mb: {type: integer, minimum: 256, maximum: 262144, default: ${d.memory_mb}}
  disk_gb: {type: integer, minimum: 1, maximum: 4096, default: ${d.disk_gb}}
  host: {type: string, pattern: "^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)?$", default: ""}
tasks:
  - task_id: act
    operator: noop
`;
