import { execFile, spawn } from "node:child_process";
import path from "node:path";
import { createTestDb, createTestRedis, freePort, waitFor, type TestDb, type TestRedis } from "@svc/testing";

const TSX = path.resolve(__dirname, "../../../node_modules/.bin/tsx");
const MAIN = path.resolve(__dirname, "../src/main.ts");

let tdb: TestDb;
let redis: TestRedis;
beforeAll(async () => {
  tdb = await createTestDb("webmain");
  redis = createTestRedis("webmain");
});
afterAll(async () => {
  await redis.cleanup();
  await tdb.drop();
});

const baseEnv = () => ({ PATH: process.env.PATH ?? "", DATABASE_URL: tdb.url, REDIS_URL: redis.url, SVC_REDIS_PREFIX: redis.prefix, SVC_LOG_LEVEL: "silent" });

describe("web-ui main", () => {
  test("refuses to start in production without credentials, saying what to set", async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(TSX, [MAIN], { env: { ...baseEnv(), SVC_DEPLOYMENT_MODE: "production", SVC_WEB_UI_PORT: "0" }, timeout: 30000 }, (err, _out, stderr) =>
        resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stderr }),
      );
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refusing to start in production without credentials: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD, or SVC_API_TOKEN");
  });

  test("serves /api/v1/health on the configured port and exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(TSX, [MAIN], { env: { ...baseEnv(), SVC_WEB_UI_PORT: String(port), SVC_API_TOKEN: "t0k" }, stdio: "ignore" });
    try {
      const health = await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => undefined);
          return res?.ok ? ((await res.json()) as { metadatabase: { status: string } }) : undefined;
        },
        { timeoutMs: 30000, what: "web-ui listening" },
      );
      expect(health.metadatabase.status).toBe("healthy");
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/dags`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/dags`, { headers: { Authorization: "Bearer t0k" } })).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
