import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { syncDagFolder } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, createTestRedis, freePort, waitFor, type TestDb, type TestRedis } from "@svc/testing";

const TSX = path.resolve(__dirname, "../../node_modules/.bin/tsx");
const MAIN = path.resolve(__dirname, "../../services/web-ui/src/main.ts");

let tdb: TestDb;
let redis: TestRedis;
let dagsDir: string;
beforeAll(async () => {
  tdb = await createTestDb("secstop");
  redis = createTestRedis("secstop");
  dagsDir = mkdtempSync(path.join(os.tmpdir(), "svc-secstop-"));
  writeFileSync(path.join(dagsDir, "hello.yaml"), "dag_id: hello\ntasks:\n  - task_id: a\n    operator: noop\n");
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: defaultOperators() });
});
afterAll(async () => {
  await redis.cleanup();
  await tdb.drop();
  rmSync(dagsDir, { recursive: true, force: true });
});

test("SIGTERM with a live-update (SSE) client attached: the web UI closes the stream and exits 0", async () => {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? "",
    DATABASE_URL: tdb.url,
    REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: redis.prefix,
    SVC_LOG_LEVEL: "silent",
    SVC_DAGS_DIR: dagsDir,
    SVC_WEB_UI_PORT: String(port),
    SVC_API_TOKEN: "t0k",
  };
  const child = spawn(TSX, [MAIN], { env, stdio: "ignore" });
  try {
    await waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => undefined))?.ok ? true : undefined), {
      timeoutMs: 30_000,
      what: "web-ui listening",
    });
    const streamEnded = new Promise<number>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port, path: "/dags/hello/grid/events", headers: { Authorization: "Bearer t0k", Accept: "text/event-stream" } }, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers["content-type"]).toContain("text/event-stream");
        res.on("data", () => undefined);
        res.on("close", () => resolve(res.statusCode ?? 0));
        child.kill("SIGTERM");
      });
      req.on("error", reject);
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    expect(await streamEnded).toBe(200);
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}, 60_000);
