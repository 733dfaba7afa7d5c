import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { loadConfig, type SvcConfig } from "@svc/config";
import { startEngineRuntime, type EngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createTestDb, createTestRedis, type TestDb, type TestRedis } from "@svc/testing";
import { createAssistantApp, createAssistantDeps, type AssistantResources } from "../../assistant-api/src";
import { createOrchestrator, type Orchestrator } from "../src";

// A stack just started on a fresh database: the services answer before the scheduler's first
// DAG-folder pass has committed. An intent sent then waits for the workflows instead of being
// refused over an empty catalogue.
jest.setTimeout(120_000);

const REPO_ROOT = path.resolve(__dirname, "../../..");
let tdb: TestDb;
let redis: TestRedis;
let dagsDir: string;
let config: SvcConfig;
let orchestrator: Orchestrator | undefined;
let engine: EngineRuntime | undefined;
let assistant: AssistantResources;
let app: ReturnType<typeof createAssistantApp>;
const logger = silentLogger();

beforeAll(async () => {
  tdb = await createTestDb("orchstart");
  redis = createTestRedis("orchstart");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-orchstart-dags-"));
  copyFileSync(path.join(REPO_ROOT, "dags/vm_deployment.yaml"), path.join(dagsDir, "vm_deployment.yaml"));
  config = loadConfig({ DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" });
  assistant = createAssistantDeps({ config, logger, db: tdb.db, intentWaitMs: 90_000 });
  app = createAssistantApp(assistant);
});

afterAll(async () => {
  await orchestrator?.close();
  await engine?.stop();
  await assistant?.close();
  await redis?.cleanup();
  await tdb?.drop();
  if (dagsDir) rmSync(dagsDir, { recursive: true, force: true });
});

const say = async (intent: string) => (await request(app).post("/orchestrator/intent").send({ intent, auto_execute: false })).body as Record<string, unknown>;

test("with no scheduler to process the DAG folder, an intent is refused after the wait saying the workflows are not loaded, not with an empty catalogue", async () => {
  orchestrator = createOrchestrator({ db: tdb.db, config, logger, catalogueWaitMs: 1000 });
  const flow = await say("create a vm called early1");
  expect(flow).toMatchObject({ status: "rejected", dag_id: null });
  expect(String(flow.summary)).toMatch(/^The workflows are not loaded yet: no scheduler has processed the DAG folder/);
  await orchestrator.close();
  orchestrator = undefined;
});

test("an intent sent before the scheduler's first DAG-folder pass is routed once the pass commits", async () => {
  orchestrator = createOrchestrator({ db: tdb.db, config, logger, catalogueWaitMs: 60_000 });
  const sent = say("create a vm called early2");
  // The scheduler starts while the intent waits (the order `pnpm start` gives under load).
  await new Promise((r) => setTimeout(r, 1500));
  engine = startEngineRuntime({ db: tdb.db, config, logger, operators: defaultOperators(), worker: false });
  const flow = await sent;
  expect(flow).toMatchObject({ dag_id: "vm_deployment", params: expect.objectContaining({ vm_name: "early2" }) });
  expect(flow.status).not.toBe("rejected");
});
