import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, startEngineRuntime, syncDagFolder, type EngineRuntime } from "@svc/engine";
import { silentLogger } from "@svc/logger";
import { defaultOperators } from "@svc/operators";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDb, createTestRedis, stackSettings, waitFor, type TestDb, type TestRedis } from "@svc/testing";

const CAP = 2048;
let tdb: TestDb;
let redis: TestRedis;
let queues: Queues;
let rt: EngineRuntime;
let dagsDir: string;
beforeAll(async () => {
  tdb = await createTestDb("logcap");
  redis = createTestRedis("logcap");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-logcap-"));
  // 5,000 numbered lines (about 24 KB) from a real command.
  writeFileSync(path.join(dagsDir, "chatty.yaml"), "dag_id: chatty\ntasks:\n  - {task_id: talk, operator: shell, args: {argv: [seq, '1', '5000']}}\n");
  const config = loadConfig({
    ...stackSettings(tdb, redis, dagsDir),
    SVC_LOG_LEVEL: "silent",
    SVC_LOG_MAX_BYTES_PER_TRY: String(CAP),
  });
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: defaultOperators() });
  await tdb.db.updateTable("dag").set({ is_paused: false }).execute();
  rt = startEngineRuntime({ db: tdb.db, config: { ...config, reconcileIntervalMs: 500 }, logger: silentLogger(), operators: defaultOperators() });
});
afterAll(async () => {
  await rt?.stop();
  await queues?.close();
  await redis?.cleanup();
  await tdb?.drop();
  rmSync(dagsDir, { recursive: true, force: true });
});

test("SVC_LOG_MAX_BYTES_PER_TRY: a task printing more keeps the first bytes up to the cap, and one closing line says how much was not stored", async () => {
  const api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog: defaultOperators() });
  const runId = (await api.triggerDagRun("chatty", {})).dag_run_id;
  await waitFor(async () => (await tdb.db.selectFrom("dag_run").select("state").where("run_id", "=", runId).executeTakeFirst())?.state === "success", {
    timeoutMs: 30_000,
    what: "run succeeded",
  });
  const rows = await tdb.db.selectFrom("task_log").select(["stream", "line"]).where("run_id", "=", runId).orderBy("id").execute();
  const out = rows.filter((r) => r.stream === "stdout").map((r) => r.line);
  const stored = out.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  expect(stored).toBeLessThanOrEqual(CAP);
  expect(out).toEqual(out.map((_, i) => String(i + 1))); // the first lines, in order
  const notStored = 5000 - out.length;
  const bytesNotStored = Array.from({ length: notStored }, (_, i) => String(out.length + 1 + i).length + 1).reduce((a, b) => a + b, 0);
  expect(rows.at(-1)).toEqual({
    stream: "system",
    line: `log size cap of ${CAP} bytes per try reached: ${notStored} more lines (${bytesNotStored} bytes) not stored (SVC_LOG_MAX_BYTES_PER_TRY)`,
  });
  expect(rows.some((r) => r.line === "task succeeded")).toBe(true);
});
