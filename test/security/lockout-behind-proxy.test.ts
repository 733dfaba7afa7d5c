import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createEngineApi, recordingNotifier } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, freePort, waitFor, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../../services/web-ui/src/app";
import { authWithRoles, basicFor } from "./users";

/**
 * The failed-login lockout behind a real nginx running the shipped configuration (render-conf.sh): each client is counted by its own address (from
 * X-Forwarded-For, believed only from the proxy), so one client's bad passwords do not lock out
 * everyone behind the proxy, and a client cannot dodge its lockout by sending its own header.
 * Clients get distinct addresses by connecting from different loopback addresses.
 */
let tdb: TestDb;
let dir: string;
let server: http.Server;
let nginx: { port: number; child: ChildProcess };
const REPO = path.join(__dirname, "..", "..");

/** nginx/nginx.conf.template rendered for spare loopback ports, in the foreground as our child. */
async function startShippedNginx(prefix: string, upstreamPort: number): Promise<{ port: number; child: ChildProcess }> {
  const [port, assistantPort] = [await freePort(), await freePort()];
  mkdirSync(path.join(prefix, "tmp"), { recursive: true });
  chmodSync(prefix, 0o755); // nginx's workers (another user when started as root) reach the temp dirs
  const up = `127.0.0.1:${upstreamPort}`;
  const r = spawnSync(
    "bash",
    [
      path.join(REPO, "nginx/render-conf.sh"),
      "--assistant-upstream",
      up,
      "--web-ui-upstream",
      up,
      "--assistant-listen",
      `127.0.0.1:${assistantPort}`,
      "--web-ui-listen",
      `127.0.0.1:${port}`,
      "--prefix",
      prefix,
    ],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`render-conf.sh: ${r.stderr}`);
  writeFileSync(path.join(prefix, "nginx.conf"), r.stdout);
  const child = spawn("nginx", ["-p", prefix, "-e", path.join(prefix, "error.log"), "-c", path.join(prefix, "nginx.conf"), "-g", "daemon off;"], { stdio: "ignore" });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined))?.status === 200, {
    timeoutMs: 15_000,
    what: "nginx",
  });
  return { port, child };
}

beforeAll(async () => {
  tdb = await createTestDb("seclockout");
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-lockout-"));
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir: dir, catalog: defaultOperators(), settings: {} });
  // Only nginx's own address may speak for a client: the clients below are loopback addresses too.
  const app = createWebUiApp({ api, auth: await authWithRoles(), trustProxy: "127.0.0.1" });
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const port = (server.address() as AddressInfo).port;
  nginx = await startShippedNginx(path.join(dir, "nginx"), port);
}, 60_000);
afterAll(async () => {
  if (nginx) {
    const exited = new Promise((r) => nginx.child.once("exit", r));
    nginx.child.kill("SIGQUIT");
    await exited;
  }
  await new Promise((r) => server?.close(r));
  await tdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** GET through nginx from `from` (a loopback source address), with extra headers. */
function get(from: string, headers: Record<string, string>): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: nginx.port, path: "/api/v1/dags", localAddress: from, headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] }));
    });
    req.on("error", reject);
    req.end();
  });
}
const bad = (i: number) => `Basic ${Buffer.from(`viewer1:guess-${i}`).toString("base64")}`;

test("behind nginx, one client's 20 bad logins lock out that client (429) and not another client of the same proxy", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await get("127.0.0.2", { Authorization: bad(i) })).status);
  expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  const locked = await get("127.0.0.2", { Authorization: basicFor("admin") });
  expect(locked.status).toBe(429);
  expect(Number(locked.retryAfter)).toBeGreaterThan(0);
  // Another client behind the same nginx is not affected.
  expect((await get("127.0.0.3", { Authorization: basicFor("admin") })).status).toBe(200);
}, 60_000);

test("a client cannot dodge the lockout with an X-Forwarded-For of its own: only the proxy's word counts", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await get("127.0.0.4", { Authorization: bad(i), "X-Forwarded-For": `198.51.100.${i + 1}` })).status);
  expect(statuses.slice(10)).toEqual([429, 429]);
  expect((await get("127.0.0.4", { Authorization: basicFor("admin"), "X-Forwarded-For": "198.51.100.200" })).status).toBe(429);
}, 60_000);
