import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Express } from "express";
import { loadConfig, type SvcConfig } from "@svc/config";
import type { FlowRow } from "@svc/db";
import { startEngineRuntime, type EngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { createTestDb, createTestRedis, waitFor, type TestDb, type TestRedis } from "@svc/testing";
import { defaultOperators } from "@svc/operators";
import { createOrchestrator, type Orchestrator } from "../../orchestrator/src";
import { createAssistantApp, createAssistantDeps, type AssistantResources } from "../src";

const FIXTURES = path.join(__dirname, "fixtures");

export interface StackOptions {
  /** Extra environment for the config (model settings, credentials). */
  env?: Record<string, string>;
  intentWaitMs?: number;
  /** Start the orchestrator (default true). */
  orchestrator?: boolean;
  /** More DAG files for this stack: file name → YAML. */
  extraDags?: Record<string, string>;
}

/** A whole platform for one test file: engine (scheduler + worker), orchestrator, assistant API. */
export interface Stack {
  tdb: TestDb;
  redis: TestRedis;
  config: SvcConfig;
  dagsDir: string;
  engine: EngineRuntime;
  orchestrator?: Orchestrator;
  assistant: AssistantResources;
  app: Express;
  /** Stop the orchestrator and the assistant API (the engine keeps running), as a restart does. */
  stopServices(): Promise<void>;
  /** Start new orchestrator (unless told not to) and assistant API instances on the same database and Redis. */
  startServices(o?: { orchestrator?: boolean }): void;
  flow(flowId: string): Promise<FlowRow>;
  waitFlow(flowId: string, statuses: string[], timeoutMs?: number): Promise<FlowRow>;
  close(): Promise<void>;
}

/** Build the stack; resolves once the scheduler has loaded the fixture DAGs. */
export async function createStack(label: string, opts: StackOptions = {}): Promise<Stack> {
  const tdb = await createTestDb(label);
  const redis = createTestRedis(label);
  const dagsDir = mkdtempSync(path.join(os.tmpdir(), `svc-${label}-dags-`));
  cpSync(path.join(FIXTURES, "dags"), dagsDir, { recursive: true });
  for (const [file, yaml] of Object.entries(opts.extraDags ?? {})) writeFileSync(path.join(dagsDir, file), yaml);
  const base = loadConfig({
    DATABASE_URL: tdb.url,
    REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: redis.prefix,
    SVC_DAGS_DIR: dagsDir,
    SVC_DOCS_DIR: path.join(FIXTURES, "docs"),
    SVC_LOG_LEVEL: "silent",
    SVC_WORKFLOW_UI_URL: "http://ui.test:8888",
    ...opts.env,
  });
  const config: SvcConfig = { ...base, reconcileIntervalMs: 500, worker: { ...base.worker, concurrency: 4, heartbeatMs: 200, zombieAfterMs: 2000 } };
  const logger = silentLogger();
  const engine = startEngineRuntime({ db: tdb.db, config, logger, operators: defaultOperators() });

  const stack: Stack = {
    tdb,
    redis,
    config,
    dagsDir,
    engine,
    assistant: undefined as unknown as AssistantResources,
    app: undefined as unknown as Express,
    startServices(o = {}) {
      if ((o.orchestrator ?? opts.orchestrator) !== false) {
        stack.orchestrator = createOrchestrator({ db: tdb.db, config, logger, sweepIntervalMs: 300, resumeAfterMs: 2000, heartbeatMs: 500 });
      }
      stack.assistant = createAssistantDeps({ config, logger, db: tdb.db, intentWaitMs: opts.intentWaitMs ?? 15_000, sse: { pollMs: 100, heartbeatMs: 200 } });
      stack.app = createAssistantApp(stack.assistant);
    },
    async stopServices() {
      await stack.orchestrator?.close();
      stack.orchestrator = undefined;
      await stack.assistant.close();
    },
    flow: (flowId) => stack.assistant.store.require(flowId),
    waitFlow(flowId, statuses, timeoutMs = 20_000) {
      return waitFor(
        async () => {
          const row = await stack.assistant.store.require(flowId);
          return statuses.includes(row.status) ? row : undefined;
        },
        { timeoutMs, intervalMs: 100, what: `flow ${flowId} in ${statuses.join("|")}` },
      );
    },
    async close() {
      await stack.stopServices().catch(() => undefined);
      await engine.stop().catch(() => undefined);
      await redis.cleanup();
      await tdb.drop();
      rmSync(dagsDir, { recursive: true, force: true });
    },
  };
  stack.startServices();
  // Every DAG file of the folder (an extra file may replace a fixture of the same name).
  const expected = readdirSync(dagsDir).filter((f) => f.endsWith(".yaml")).length;
  await waitFor(async () => (await stack.assistant.engine.listDags({})).total_entries >= expected, { timeoutMs: 20_000, what: "fixture DAGs loaded" });
  return stack;
}
