import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, startEngineRuntime, syncDagFolder, type EngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, waitFor, type TestDb, type TestRedis } from "@svc/testing";
import { createWebUiApp } from "../src/app";
import { AUTH, BEARER } from "./helpers";

const SLEEPER = `dag_id: sleeper
tasks:
  - task_id: nap
    operator: sleep
    args: {seconds: 2.5, print_every: 0.25}
`;

let tdb: TestDb;
let redis: TestRedis;
let dagsDir: string;
let queues: Queues;
let runtime: EngineRuntime;
let app: ReturnType<typeof createWebUiApp>;

beforeAll(async () => {
  tdb = await createTestDb("logfollow");
  redis = createTestRedis("logfollow");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-follow-"));
  writeFileSync(path.join(dagsDir, "sleeper.yaml"), SLEEPER);
  const catalog = defaultOperators();
  await syncDagFolder({ db: tdb.db, dagsDir, catalog });
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog });
  app = createWebUiApp({ api, auth: AUTH });
  const config = loadConfig({ DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: "silent" });
  runtime = startEngineRuntime({ db: tdb.db, config, logger: silentLogger(), operators: defaultOperators(), reconcileIntervalMs: 500 });
});
afterAll(async () => {
  await runtime?.stop();
  await queues?.close();
  await redis.cleanup();
  await tdb.drop();
  rmSync(dagsDir, { recursive: true, force: true });
});

const api = (method: "get" | "post" | "patch", url: string) => request(app)[method](url).set("Authorization", BEARER);

describe("following a running task's log through the REST API", () => {
  test("repeated requests with the continuation token return only new lines while the sleep task runs, then finished", async () => {
    await api("patch", "/api/v1/dags/sleeper").send({ is_paused: false }).expect(200);
    await api("post", "/api/v1/dags/sleeper/dagRuns").send({ dag_run_id: "follow" }).expect(200);
    const logUrl = "/api/v1/dags/sleeper/dagRuns/follow/taskInstances/nap/logs/1";
    await waitFor(async () => (await api("get", "/api/v1/dags/sleeper/dagRuns/follow/taskInstances/nap")).body.state === "running", { timeoutMs: 20000, what: "nap running" });

    const chunks: string[] = [];
    let token: string | undefined;
    let finished = false;
    let unfinishedAnswers = 0;
    for (let i = 0; i < 400 && !finished; i++) {
      const res = await api("get", `${logUrl}${token ? `?token=${token}` : ""}`).expect(200);
      token = res.body.continuation_token;
      finished = res.headers["x-log-finished"] === "true";
      if (!finished) unfinishedAnswers++;
      if (res.body.content) chunks.push(res.body.content);
      if (!finished) await new Promise((r) => setTimeout(r, 150));
    }
    expect(finished).toBe(true);
    const ticks = chunks
      .join("")
      .split("\n")
      .filter((l) => l.includes("tick"))
      .map((l) => Number(/tick (\d+)/.exec(l)![1]));
    // Every line exactly once, in order, across the chunks.
    expect(ticks).toEqual(Array.from({ length: ticks.length }, (_, i) => i + 1));
    expect(ticks.length).toBeGreaterThanOrEqual(6);
    // It really was followed: several answers came while the task ran, with lines in more than one of them.
    expect(unfinishedAnswers).toBeGreaterThan(1);
    expect(chunks.filter((c) => c.includes("tick")).length).toBeGreaterThan(1);
    const after = await api("get", `${logUrl}?token=${token}`).expect(200);
    expect(after.body.content).toBe("");
    expect(after.headers["x-log-finished"]).toBe("true");
    expect((await api("get", "/api/v1/dags/sleeper/dagRuns/follow").expect(200)).body.state).toBe("success");
  });
});
