// A cloud host, as a user meets it: "create a vm called c1 on hz-test" through the assistant's HTTP
// API, the stack as `pnpm start` runs it, the Hetzner driver in the worker against a fake of the
// Hetzner API whose servers are real local VMs (the test image, SSH forwarded to 127.0.0.1), reached
// through the host's bastion (a fake's SSH server on 127.0.0.1 that forwards to them). No test
// traffic goes to an address the fake invents: the bastion delivers a connection to a server's
// public address to that server's VM forward.
import { execFile, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDb } from "../../packages/db/src";
import { runCli } from "@svc/hosts/cli";
import {
  acquireVmTestLock,
  createTestDb,
  createTestRedis,
  createVmScratch,
  ensureLibvirtd,
  ensureTestImage,
  freePort,
  type TestDb,
  type TestRedis,
  type VmScratch,
} from "@svc/testing";
import { startFakeBastion, type FakeBastion } from "../../packages/vm/test/fake-bastion";
import { startHetznerFake, type HetznerFake } from "../../packages/vm/test/hetzner-fake";
import { localMachines } from "../../packages/vm/test/hetzner-fake-machines";
import { say, settle, type Json } from "./api";
import { startStack, type RunningStack } from "./stack";

const VM = "c1";
const PREFIX = `hz${process.pid % 100000}`;
let unlock: () => void;
let tdb: TestDb;
let redis: TestRedis;
let scratch: VmScratch;
let work: string;
let fake: HetznerFake;
let bastion: FakeBastion;
let env: Record<string, string>;
let stack: RunningStack | undefined;
let db: ReturnType<typeof createDb> | undefined;

beforeAll(async () => {
  unlock = await acquireVmTestLock();
  await ensureLibvirtd();
  const img = ensureTestImage();
  tdb = await createTestDb("hzcloud");
  redis = createTestRedis("hzcloud");
  scratch = createVmScratch("hzcloud");
  work = mkdtempSync(join(tmpdir(), "svc-hzcloud-"));
  fake = await startHetznerFake("hc-e2e-token", { machines: localMachines({ imagesDir: img.imagesDir, disksDir: scratch.disksDir, image: img.image, prefix: PREFIX }) });
  bastion = await startFakeBastion(scratch.pubKeyPath, (address, port) => fake.sshPortOf(address, port));
  const secrets = join(work, "secrets.yml");
  writeFileSync(secrets, `vault_hcloud_token: ${fake.token}\n`);
  chmodSync(secrets, 0o600);
  env = {
    DATABASE_URL: tdb.url,
    REDIS_URL: redis.url,
    SVC_REDIS_PREFIX: redis.prefix,
    SVC_ASSISTANT_PORT: String(await freePort()),
    SVC_WEB_UI_PORT: String(await freePort()),
    // The plays, key reads and SSH waits run on this machine (the configured host is local).
    SVC_SSH_HOST: "local",
    SVC_VM_IMAGES_DIR: img.imagesDir,
    SVC_VM_DISKS_DIR: scratch.disksDir,
    SVC_VM_DEFAULT_IMAGE: "debian12",
    SVC_VM_DEFAULT_NETWORK: "user",
    SVC_VM_SSH_PUBKEY: scratch.pubKeyPath,
    SVC_VM_SSH_PRIVKEY: scratch.keyPath,
    SVC_INVENTORY_DIR: join(work, "inventory"),
    SVC_SECRETS_FILE: secrets,
    SVC_ENV_FILE: join(work, "absent.env"),
  };
}, 1_200_000);

afterAll(async () => {
  await stack?.stop();
  await db?.destroy();
  await bastion?.stop();
  await fake?.stop();
  scratch?.cleanup(PREFIX);
  await tdb?.drop();
  await redis?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
  unlock?.();
}, 120_000);

const domstate = (name: string) => spawnSync("virsh", ["-c", "qemu:///system", "domstate", name], { encoding: "utf8" });
const pinnedPath = () => join(env.SVC_INVENTORY_DIR!, "cloud-known-hosts", "hz-test", VM);
const server = () => [...fake.servers.values()].find((s) => s.name === VM);
const logOf = async (runId: string, taskId: string) =>
  (await db!.selectFrom("task_log").select("line").where("dag_id", "=", "vm_deployment").where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute()).map(
    (r) => r.line,
  );

/** A command on c1 as svc reaches it: through the bastion, checked against the keys svc pinned. */
function onVm(...cmd: string[]): Promise<{ code: number; stdout: string }> {
  const jumpKh = join(work, "bastion_known_hosts");
  writeFileSync(jumpKh, `[127.0.0.1]:${bastion.port} ${bastion.hostKey}\n`);
  const proxy = `ssh -F /dev/null -i ${scratch.keyPath} -o IdentitiesOnly=yes -o UserKnownHostsFile=${jumpKh} -o StrictHostKeyChecking=yes -o BatchMode=yes -p ${bastion.port} -l root -W %h:%p 127.0.0.1`;
  const ip = String(server()!.public_net.ipv4.ip);
  const argv = [
    "-F",
    "/dev/null",
    "-i",
    scratch.keyPath,
    "-o",
    "IdentitiesOnly=yes",
    "-o",
    `UserKnownHostsFile=${pinnedPath()}`,
    "-o",
    "StrictHostKeyChecking=yes",
    "-o",
    "BatchMode=yes",
  ];
  return new Promise((done) =>
    execFile("ssh", [...argv, "-o", `ProxyCommand=${proxy}`, "-l", "root", "--", ip, ...cmd], { encoding: "utf8", timeout: 120_000 }, (err, stdout) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
    ),
  );
}

test("the stack comes up with its workflows loaded, and svc-hosts adds hz-test (Hetzner, through its bastion) without creating anything", async () => {
  stack = await startStack(env);
  db = createDb(tdb.url);
  // Healthy means the DAG folder was processed: the first intent finds vm_deployment (a stack
  // reported healthy on the scheduler's heartbeat alone once refused it over an empty catalogue).
  expect(await db.selectFrom("dag").select("dag_id").where("dag_id", "=", "vm_deployment").executeTakeFirst()).toEqual({ dag_id: "vm_deployment" });
  let out = "";
  let err = "";
  const code = await runCli(
    // prettier-ignore
    ["add", "hz-test", "--provider", "hetzner", "--location", "fsn1", "--endpoint", fake.endpoint, "--bastion", `root@127.0.0.1:${bastion.port}`,
      "--bastion-key", bastion.hostKey, "--ssh-user", "root", "--key", scratch.keyPath, "--no-probe", "-o", "json"],
    { out: (t) => (out += t), err: (t) => (err += t), env: { DATABASE_URL: tdb.url, SVC_LOG_LEVEL: "silent" } },
  );
  expect({ code, err }).toMatchObject({ code: 0 });
  expect(JSON.parse(out)).toMatchObject({
    name: "hz-test",
    provider: "hetzner",
    provider_settings: { location: "fsn1", bastion: `root@127.0.0.1:${bastion.port}`, ssh_user: "root" },
  });
  expect(fake.servers.size).toBe(0);
}, 300_000);

let created: Json;
test(`"create a vm called ${VM} on hz-test" makes a Hetzner server, configured over SSH through the bastion, with its provenance file`, async () => {
  const started = Date.now();
  const sent = await say(stack!.assistantUrl, `create a vm called ${VM} on hz-test`);
  expect(sent.status).toBeLessThan(300);
  created = await settle(stack!.assistantUrl, String(sent.body.flow_id), 1_500_000);
  process.stdout.write(`[hetzner] vm_deployment on hz-test (fake API, test-image VM, TCG): ${String(created.status)} in ${Math.round((Date.now() - started) / 1000)} s\n`);
  if (created.status !== "completed") process.stdout.write(`[hetzner] flow: ${JSON.stringify(created)}\nstack output:\n${stack!.output().slice(-6000)}\n`);
  expect(created).toMatchObject({ status: "completed", dag_id: "vm_deployment", params: expect.objectContaining({ vm_name: VM, host: "hz-test" }) });
  const sv = server()!;
  expect(sv.labels).toMatchObject({ "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": created.run_id });
  expect(domstate(`${PREFIX}-${VM}`).stdout.trim()).toBe("running");
  // svc went through the bastion to the server's public address, and nowhere else.
  expect(new Set(bastion.forwards)).toEqual(new Set([`${sv.public_net.ipv4.ip}:22`]));
  const wait = await logOf(String(created.run_id), "wait_ssh");
  expect(wait.join("\n")).toMatch(/Host keys trusted on first use \(hetzner prints none svc can read beforehand\), pinned in /);
  expect(existsSync(pinnedPath())).toBe(true);

  const hostname = await onVm("hostname");
  expect(hostname).toEqual({ code: 0, stdout: `${VM}\n` });
  const managed = JSON.parse((await onVm("cat", "/etc/svc/managed.json")).stdout) as Json;
  expect(managed).toMatchObject({
    managed_by: "svc",
    vm_name: VM,
    dag_id: "vm_deployment",
    dag_run_id: created.run_id,
    flow_id: created.flow_id,
    intent: `create a vm called ${VM} on hz-test`,
  });
}, 1_700_000);

test(`"delete the vm ${VM}" removes the server and its VM; nothing svc made stays but its one SSH key`, async () => {
  expect(created?.status).toBe("completed");
  const sent = await say(stack!.assistantUrl, `delete the vm ${VM}`);
  const flow = await settle(stack!.assistantUrl, String(sent.body.flow_id), 300_000);
  expect(flow).toMatchObject({ status: "completed", params: expect.objectContaining({ action: "delete", vm_name: VM }) });
  expect(fake.servers.size).toBe(0);
  expect(domstate(`${PREFIX}-${VM}`).status).not.toBe(0);
  expect(existsSync(pinnedPath())).toBe(false);
  // The key svc uploaded is one per public key (found again by its fingerprint), not per run.
  expect([...fake.sshKeys.values()].map((k) => k.labels)).toEqual([{ "managed-by": "svc" }]);
}, 360_000);
