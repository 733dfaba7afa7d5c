import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { createEngineApi } from "@svc/engine";
import { defaultOperators } from "@svc/operators";
import { createTestDb, recordingNotifier, waitFor, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../../services/web-ui/src/app";
import { startNetns, type PeerAnswer, type TestNetns } from "./netns";
import { authWithRoles, basicFor } from "./users";

/**
 * The failed-login lockout behind the real nginx (nginx/nginx.conf.template rendered by
 * render-conf.sh) with the compose deployment's addresses and trust setting, read from
 * compose/compose.yaml: nginx has its fixed address on the compose network, and the web UI
 * believes X-Forwarded-For from that address only. All of it runs in a network namespace of the
 * test's own, whose loopback carries the compose addresses: nginx connects to the web UI from
 * its compose address, clients connect to nginx from distinct loopback addresses, and another
 * "container" of the compose network connects to the web UI directly.
 */
const REPO = path.join(__dirname, "..", "..");

/** compose.yaml's values as the compose tool resolves them with nothing set: `${VAR:-default}` → default. */
function composeDefaults(): { trustProxy: string; nginxAddress: string; otherContainer: string } {
  const YAML = createRequire(path.join(REPO, "packages/dags/package.json"))("yaml") as { parse(s: string, o?: object): unknown };
  const c = YAML.parse(readFileSync(path.join(REPO, "compose/compose.yaml"), "utf8"), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; networks?: Record<string, { ipv4_address?: string }> }>;
    networks: { default: { ipam: { config: { ip_range: string }[] } } };
  };
  const resolve = (v: string | undefined) => (v ?? "").replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, "$1");
  const trustProxy = resolve(c.services["web-ui"]!.environment!.SVC_TRUST_PROXY);
  expect(resolve(c.services["assistant-api"]!.environment!.SVC_TRUST_PROXY)).toBe(trustProxy);
  const nginxAddress = resolve(c.services.nginx!.networks!.default!.ipv4_address);
  // An address the compose network hands to another container: the first of its dynamic range, plus one.
  const [base] = resolve(c.networks.default.ipam.config[0]!.ip_range).split("/");
  const octets = base!.split(".").map(Number);
  octets[3]! += 2;
  return { trustProxy, nginxAddress, otherContainer: octets.join(".") };
}

const compose = composeDefaults();
let tdb: TestDb;
let dir: string;
let ns: TestNetns;
let server: http.Server;
let appPort: number;
let nginx: { port: number; child: ChildProcess };

/** The shipped template rendered for this namespace: web UI upstream at nginx's compose address, as in compose. */
async function startShippedNginx(prefix: string, upstream: string): Promise<{ port: number; child: ChildProcess }> {
  const [port, assistantPort] = [18888, 18080]; // a fresh namespace: every port is free
  mkdirSync(path.join(prefix, "tmp"), { recursive: true });
  chmodSync(prefix, 0o755); // nginx's workers (another user when started as root) reach the temp dirs
  const r = spawnSync(
    "bash",
    [
      path.join(REPO, "nginx/render-conf.sh"),
      ...["--assistant-upstream", upstream, "--web-ui-upstream", upstream],
      ...["--assistant-listen", `127.0.0.1:${assistantPort}`, "--web-ui-listen", `127.0.0.1:${port}`, "--prefix", prefix],
    ],
    { encoding: "utf8" },
  );
  if (r.status !== 0) throw new Error(`render-conf.sh: ${r.stderr}`);
  writeFileSync(path.join(prefix, "nginx.conf"), r.stdout);
  const argv = [...ns.exec, "nginx", "-p", prefix, "-e", path.join(prefix, "error.log"), "-c", path.join(prefix, "nginx.conf"), "-g", "daemon off;"];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore" });
  await waitFor(async () => (await ns.get({ from: "127.0.0.1", host: "127.0.0.1", port, path: "/api/v1/openapi.json" }).catch(() => undefined))?.status === 200, {
    timeoutMs: 15_000,
    what: "nginx",
  });
  return { port, child };
}

beforeAll(async () => {
  tdb = await createTestDb("seclockout");
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-lockout-"));
  ns = await startNetns("xff", [compose.nginxAddress, compose.otherContainer]);
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir: dir, catalog: defaultOperators(), settings: {} });
  // The compose value of SVC_TRUST_PROXY, exactly.
  server = http.createServer(createWebUiApp({ api, auth: await authWithRoles(), trustProxy: compose.trustProxy }));
  // The web UI listens inside the namespace, on all its addresses (0.0.0.0 as in compose).
  const listening = await ns.listen("0.0.0.0");
  appPort = listening.port;
  await new Promise<void>((r) => server.listen(listening.handle, r));
  nginx = await startShippedNginx(path.join(dir, "nginx"), `${compose.nginxAddress}:${appPort}`);
}, 60_000);
afterAll(async () => {
  if (nginx) {
    const exited = new Promise((r) => nginx.child.once("exit", r));
    nginx.child.kill("SIGQUIT");
    await exited;
  }
  await new Promise((r) => server?.close(r));
  await ns?.close();
  await tdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** GET /api/v1/dags through nginx from `from` (a loopback address of the namespace). */
const viaNginx = (from: string, headers: Record<string, string>): Promise<PeerAnswer> => ns.get({ from, host: "127.0.0.1", port: nginx.port, path: "/api/v1/dags", headers });
/** GET /api/v1/dags straight to the web UI (not through nginx) from `from`. */
const direct = (from: string, headers: Record<string, string>): Promise<PeerAnswer> => ns.get({ from, host: compose.nginxAddress, port: appPort, path: "/api/v1/dags", headers });
const bad = (user: string, i: number) => `Basic ${Buffer.from(`${user}:guess-${i}`).toString("base64")}`;

test("compose trusts exactly nginx's fixed address on its network, and nothing else", () => {
  expect(compose.trustProxy).toBe(compose.nginxAddress);
  expect(compose.nginxAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
});

test("behind nginx, one client's 20 bad logins lock out that client (429) and not another client of the same proxy", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await viaNginx("127.0.0.2", { Authorization: bad("viewer1", i) })).status);
  expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  const locked = await viaNginx("127.0.0.2", { Authorization: basicFor("admin") });
  expect(locked.status).toBe(429);
  expect(Number(locked.retryAfter)).toBeGreaterThan(0);
  // Another client behind the same nginx is not affected.
  expect((await viaNginx("127.0.0.3", { Authorization: basicFor("admin") })).status).toBe(200);
}, 60_000);

test("a client behind nginx cannot change its lockout identity with an X-Forwarded-For of its own", async () => {
  // Invented user names count per client only: the client's own count is all that can lock it.
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await viaNginx("127.0.0.4", { Authorization: bad(`nobody${i}`, i), "X-Forwarded-For": `198.51.100.${i + 1}` })).status);
  expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
  expect((await viaNginx("127.0.0.4", { Authorization: basicFor("admin"), "X-Forwarded-For": "198.51.100.200" })).status).toBe(429);
  expect((await viaNginx("127.0.0.4", { Authorization: basicFor("admin"), "X-Forwarded-For": "10.1.2.3, 127.0.0.9" })).status).toBe(429);
}, 60_000);

test("another container of the compose network, reaching the web UI without nginx, is counted by its own address whatever X-Forwarded-For it sends", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await direct(compose.otherContainer, { Authorization: bad(`nobody${i}`, i), "X-Forwarded-For": `198.51.100.${i + 1}` })).status);
  expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
  expect((await direct(compose.otherContainer, { Authorization: basicFor("admin"), "X-Forwarded-For": "198.51.100.201" })).status).toBe(429);
  // nginx's own clients are not affected.
  expect((await viaNginx("127.0.0.5", { Authorization: basicFor("admin") })).status).toBe(200);
}, 60_000);
