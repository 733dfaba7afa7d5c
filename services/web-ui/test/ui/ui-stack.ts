import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, startEngineRuntime, type EngineApi, type EngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, freePort, waitFor, type TestDb, type TestRedis } from "@svc/testing";
import { createWebUiApp } from "../../src/app";
import { AUTH } from "../helpers";

/** Debian's chromium, launched as the product's browser tests and screenshots require. */
export const CHROMIUM_PATH = process.env.SVC_CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** A browser context signed in with the REST API's basic credentials. */
export function signedInContext(browser: Browser, viewport = { width: 1360, height: 860 }): Promise<BrowserContext> {
  return browser.newContext({ httpCredentials: { username: AUTH.adminUser!, password: AUTH.adminPassword! }, viewport });
}

export interface UiStack {
  tdb: TestDb;
  redis: TestRedis;
  config: SvcConfig;
  dagsDir: string;
  api: EngineApi;
  runtime: EngineRuntime;
  baseUrl: string;
  writeDag(file: string, yaml: string): void;
  close(): Promise<void>;
}

export interface UiStackOptions {
  dags: Record<string, string>;
  /** Port chosen beforehand (the assistant's config names the UI's URL). */
  port?: number;
  assistantUrl?: string;
  /** More configuration variables (e.g. the assistant's docs folder). */
  env?: Record<string, string>;
}

/** Postgres, Redis, scheduler and worker, and the web UI on a spare loopback port with credentials. */
export async function startUiStack(label: string, opts: UiStackOptions): Promise<UiStack> {
  const tdb = await createTestDb(label);
  const redis = createTestRedis(label);
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), `svc-${label}-dags-`));
  const writeDag = (file: string, yaml: string) => writeFileSync(path.join(dagsDir, file), yaml);
  for (const [file, yaml] of Object.entries(opts.dags)) writeDag(file, yaml);
  const base = loadConfig({ DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent", ...opts.env });
  const config: SvcConfig = { ...base, reconcileIntervalMs: 500, worker: { ...base.worker, concurrency: 4, heartbeatMs: 200 } };
  const runtime = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators() });
  const queues: Queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog: defaultOperators() });
  const app = createWebUiApp({ api, auth: AUTH, ui: { db: tdb.db, assistantUrl: opts.assistantUrl, gridEvents: { pollMs: 250 } } });
  const port = opts.port ?? (await freePort());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  const expected = Object.keys(opts.dags).length;
  await waitFor(async () => (await api.listDags({})).total_entries >= expected, { timeoutMs: 20_000, what: "DAGs loaded" });
  return {
    tdb,
    redis,
    config,
    dagsDir,
    api,
    runtime,
    baseUrl: `http://127.0.0.1:${port}`,
    writeDag,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.stop().catch(() => undefined);
      await queues.close();
      await redis.cleanup();
      await tdb.drop();
      rmSync(dagsDir, { recursive: true, force: true });
    },
  };
}
