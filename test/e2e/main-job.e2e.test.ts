// The product's main job, as a newcomer meets it: host preparation (what README command 1 runs),
// the stack as `pnpm start` runs it, and sentences sent to the assistant's HTTP API. Real
// Postgres, Redis, sshd, libvirtd and a TCG VM from the test image; nothing faked.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  acquireVmTestLock,
  createTestDb,
  createTestRedis,
  createVmScratch,
  ensureLibvirtd,
  freePort,
  startSshd,
  type TestDb,
  type TestRedis,
  type TestSshd,
  type VmScratch,
} from "@svc/testing";
import { get, say, settle, type Json } from "./api";
import { REPO_ROOT, runScript, startStack, type RunningStack } from "./stack";

const VM = "e2e01";
let unlock: () => void;
let sshd: TestSshd;
let tdb: TestDb;
let redis: TestRedis;
let scratch: VmScratch;
let work: string;
let env: Record<string, string>;
let stack: RunningStack | undefined;

beforeAll(async () => {
  unlock = await acquireVmTestLock();
  await ensureLibvirtd();
  sshd = await startSshd();
  tdb = await createTestDb("e2e");
  redis = createTestRedis("e2e");
  scratch = createVmScratch("e2e");
  work = mkdtempSync(join(tmpdir(), "svc-e2e-"));
  env = {
    DATABASE_URL: tdb.url,
    REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: redis.prefix,
    SVC_ASSISTANT_PORT: String(await freePort()),
    SVC_WEB_UI_PORT: String(await freePort()),
    // The host as the workers reach it: this test's sshd; the key and the pin are made by prepare-host.sh.
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_USER: "root",
    SVC_SSH_KEY_PATH: join(work, "ssh", "id_ed25519"),
    SVC_SSH_KNOWN_HOSTS: join(work, "ssh", "known_hosts"),
    SVC_SSH_AUTHORIZED_KEYS: join(sshd.dir, "authorized_keys"),
    SVC_VM_IMAGES_DIR: join(work, "images"),
    SVC_VM_DISKS_DIR: scratch.disksDir,
    SVC_VM_DEFAULT_IMAGE: "debian-test",
    SVC_VM_DEFAULT_NETWORK: "user",
    SVC_VM_CLI: JSON.stringify([join(REPO_ROOT, "packages/vm/bin/svc-vm")]),
    SVC_VM_SSH_PUBKEY: scratch.pubKeyPath,
    SVC_VM_SSH_PRIVKEY: scratch.keyPath,
    SVC_INVENTORY_DIR: join(work, "inventory"),
    SVC_ENV_FILE: join(work, "absent.env"),
  };
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  scratch?.cleanup("e2e");
  await sshd?.stop();
  await tdb?.drop();
  await redis?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
  unlock?.();
}, 120_000);

const domstate = (name: string) => spawnSync("virsh", ["-c", "qemu:///system", "domstate", name], { encoding: "utf8" });
const vmRuns = async () => Number((await get(`${stack!.webUiUrl}/api/v1/dags/vm_deployment/dagRuns`)).total_entries);
// Asynchronous: a blocked event loop would leave this process's idle HTTP connections stale.
const vmSsh = (...cmd: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
    execFile(
      join(REPO_ROOT, "packages/vm/bin/svc-vm"),
      ["ssh", "vm", VM, "--disks-dir", scratch.disksDir, "--identity", scratch.keyPath, "--timeout", "60", "--", ...cmd],
      { encoding: "utf8", timeout: 120_000 },
      (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );

test("prepare-host.sh generates the workers' key, authorizes it, pins the host key and registers the default image; a second run changes nothing", () => {
  const first = runScript("scripts/development/prepare-host.sh", ["--no-path-link"], env);
  expect(first.out).toMatch(/authorized_keys: added/);
  expect(first.out).toMatch(/host key pinned in/);
  expect(first.out).toMatch(/==> host ready in \d+ s/);
  expect(existsSync(env.SVC_SSH_KEY_PATH!)).toBe(true);
  expect(readlinkSync(join(env.SVC_VM_IMAGES_DIR!, "debian-test"))).toMatch(/test-image/);
  const pinned = readFileSync(env.SVC_SSH_KNOWN_HOSTS!, "utf8");
  // Pinned under every name the workers may use for this host, the loopback address first.
  expect(pinned).toMatch(new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port},\\S* ${sshd.hostPublicKey.replace(/[+/]/g, "\\$&")}$`, "m"));
  const authorized = readFileSync(env.SVC_SSH_AUTHORIZED_KEYS!, "utf8");

  const second = runScript("scripts/development/prepare-host.sh", ["--no-path-link"], env);
  expect(second.code).toBe(0);
  expect(second.out).not.toMatch(/^\s+\+ |authorized_keys: added|host key pinned in \S+ for|created |made \S+ readable/m);
  expect(second.out).toMatch(/up to date/);
  expect(readFileSync(env.SVC_SSH_KNOWN_HOSTS!, "utf8")).toBe(pinned);
  expect(readFileSync(env.SVC_SSH_AUTHORIZED_KEYS!, "utf8")).toBe(authorized);
}, 1_500_000);

test("the stack comes up healthy with the prepared settings", async () => {
  stack = await startStack(env);
  expect(stack.output()).toMatch(/svc is up and healthy/);
}, 240_000);

test.each([
  ["a path", "create a vm called ../../etc/passwd"],
  ["an option-like name", "create a vm called -oProxyCommand=touch /tmp/x"],
  ["a command after a newline", "create a vm called a\ntouch /tmp/x"],
  ["a name with a quote", "create a vm called web'01"],
  ["a name with a space", "create a vm called web 01"],
])(
  "a VM name the user gave that is invalid (%s) ends as needs_input or rejected and creates no run",
  async (_what, intent) => {
    const before = await vmRuns();
    const sent = await say(stack!.assistantUrl, intent);
    const flow = sent.status < 300 ? await settle(stack!.assistantUrl, String(sent.body.flow_id), 60_000) : sent.body;
    if (sent.status < 300) {
      expect(["needs_input", "rejected"]).toContain(flow.status);
      expect(flow.run_id).toBeNull();
    } else {
      expect(sent.status).toBe(400);
    }
    expect(await vmRuns()).toBe(before);
  },
  120_000,
);

let created: Json;
test(`"create a vm called ${VM}" gives a running VM that answers SSH and carries its provenance`, async () => {
  const sent = await say(stack!.assistantUrl, `create a vm called ${VM}`);
  expect(sent.status).toBeLessThan(300);
  created = await settle(stack!.assistantUrl, String(sent.body.flow_id), 1_500_000);
  expect(created.status).toBe("completed");
  expect(created.dag_id).toBe("vm_deployment");
  const obs = (await (
    await fetch(`${stack!.assistantUrl}/orchestrator/observe?dag_id=vm_deployment&run_id=${String(created.run_id)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
    })
  ).json()) as Json;
  expect(obs.overall_status).toBe("success");
  expect(obs.progress_percent).toBe(100);
  expect(domstate(VM).stdout.trim()).toBe("running");

  const hostname = await vmSsh("hostname");
  expect(hostname.stderr).toBe("");
  expect(hostname.stdout.trim()).toBe(VM);
  const managed = JSON.parse((await vmSsh("cat", "/etc/svc/managed.json")).stdout) as Json;
  expect(managed).toMatchObject({
    managed_by: "svc",
    vm_name: VM,
    dag_id: "vm_deployment",
    dag_run_id: created.run_id,
    flow_id: created.flow_id,
    intent: `create a vm called ${VM}`,
  });
  expect(String(managed.created_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(managed.svc_version).toBe(JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version);
}, 1_700_000);

test(`"delete the vm ${VM}" removes it`, async () => {
  expect(created?.status).toBe("completed");
  const sent = await say(stack!.assistantUrl, `delete the vm ${VM}`);
  const flow = await settle(stack!.assistantUrl, String(sent.body.flow_id), 300_000);
  expect(flow.status).toBe("completed");
  expect(flow.params).toMatchObject({ action: "delete", vm_name: VM });
  expect(domstate(VM).status).not.toBe(0);
  expect(existsSync(join(scratch.disksDir, VM))).toBe(false);
}, 360_000);
