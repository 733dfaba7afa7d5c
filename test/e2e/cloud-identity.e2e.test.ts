// identity_deployment on a cloud host, closed by default: a Hetzner host (a fake of its API whose
// server is a real local TCG VM from the debian12 image, reached through the host's fake bastion on
// 127.0.0.1). The fake cloud's network carries to the VM only what the server's firewall opens,
// through 127.0.0.1 forwards; so kinit and dig from this machine working shows the firewall open for
// them, and the firewall object the fake stored is read back rule by rule. One VM for all of it.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, syncDagFolder } from "@svc/engine";
import { createHostService } from "@svc/hosts";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { acquireVmTestLock, createTestDb, createTestRedis, createVmScratch, ensureLibvirtd, ensureProductImage, waitFor, type TestDb, type VmScratch } from "@svc/testing";
import { HetznerDriver } from "../../packages/vm/src/hetzner/driver";
import { startFakeBastion, type FakeBastion } from "../../packages/vm/test/fake-bastion";
import { startHetznerFake, type HetznerFake } from "../../packages/vm/test/hetzner-fake";
import { localMachines } from "../../packages/vm/test/hetzner-fake-machines";
import { engineTestEnv, startCloudEngine } from "./engine-env";
import { strongPassword, taskSeconds } from "./product-stack";
import { REPO_ROOT } from "./stack";

const DAG = "identity_deployment";
const VM = "idc";
const PREFIX = `hzidm${process.pid % 100000}`;
const DOMAIN = "corp.example.org";
const REALM = "CORP.EXAMPLE.ORG";
const PASSWORD = strongPassword();
// Documentation networks (RFC 5737): what the firewall opens to; never a destination.
const ALLOW = ["198.51.100.0/24", "203.0.113.64/26"];
const CONF = { host: "hz-test", vm_name: VM, domain: DOMAIN, image: "debian12", memory_mb: 1536, cpus: 2, ssh_wait_timeout: 1200, allow_from: ALLOW };

let unlock: () => void;
let tdb: TestDb;
let redis: ReturnType<typeof createTestRedis>;
let queues: ReturnType<typeof createQueues>;
let scratch: VmScratch;
let work: string;
let fake: HetznerFake;
let bastion: FakeBastion;
let api: ReturnType<typeof createEngineApi>;
let engine: Awaited<ReturnType<typeof startCloudEngine>> | undefined;

beforeAll(async () => {
  unlock = await acquireVmTestLock(3_600_000);
  await ensureLibvirtd();
  const img = ensureProductImage();
  scratch = createVmScratch("hzidm");
  work = mkdtempSync(path.join(tmpdir(), "svc-hzidm-"));
  const dagsDir = path.join(work, "dags");
  mkdirSync(dagsDir, { recursive: true });
  mkdirSync(path.join(work, "inventory"), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, "dags", `${DAG}.yaml`), path.join(dagsDir, `${DAG}.yaml`));
  const machines = localMachines({ imagesDir: img.imagesDir, disksDir: scratch.disksDir, image: img.image, prefix: PREFIX, memoryMb: 1536, cpus: 2 });
  fake = await startHetznerFake("hc-idm-token", { machines });
  bastion = await startFakeBastion(scratch.pubKeyPath, (address, port) => fake.sshPortOf(address, port));
  const vaultPass = path.join(work, "vault-pass");
  writeFileSync(vaultPass, `${randomBytes(16).toString("hex")}\n`, { mode: 0o600 });
  const secrets = path.join(work, "secrets.yml");
  writeFileSync(secrets, `vault_ipa_admin_password: ${JSON.stringify(PASSWORD)}\n`, { mode: 0o600 });
  const enc = spawnSync("ansible-vault", ["encrypt", "--vault-password-file", vaultPass, secrets], { encoding: "utf8" });
  if (enc.status !== 0) throw new Error(`ansible-vault encrypt failed: ${enc.stderr}`);
  tdb = await createTestDb("hzidm");
  redis = createTestRedis("hzidm");
  const config = {
    ...loadConfig({
      ...engineTestEnv(tdb, redis, dagsDir),
      SVC_SSH_HOST: "local",
      SVC_INVENTORY_DIR: path.join(work, "inventory"),
      SVC_PLAYBOOKS_DIR: path.join(REPO_ROOT, "playbooks"),
      SVC_SECRETS_FILE: secrets,
      SVC_VAULT_PASSWORD_FILE: vaultPass,
      SVC_VM_DEFAULT_NETWORK: "default",
    }),
    reconcileIntervalMs: 2000,
  };
  await createHostService({ db: tdb.db }).addCloud(
    {
      name: "hz-test",
      provider: "hetzner",
      settings: { location: "fsn1", endpoint: fake.endpoint, bastion: `root@127.0.0.1:${bastion.port}`, ssh_user: "root" },
      key_path: scratch.keyPath,
      bastion_key: bastion.hostKey,
    },
    { probe: false, actor: "test" },
  );
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const operators = defaultOperators();
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: operators, settings: dagSettingsFromConfig(config), notifier: createQueueNotifier(queues) });
  api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog: operators, settings: dagSettingsFromConfig(config) });
  await api.setPaused(DAG, false);
  engine = await startCloudEngine(
    tdb.db,
    config,
    async (r) => new HetznerDriver({ location: r.provider_settings.location!, endpoint: r.provider_settings.endpoint!, token: fake.token, sshUser: "root", pollMs: 500 }),
  );
}, 3_000_000);

afterAll(async () => {
  await engine?.stop();
  await queues?.close();
  await bastion?.stop();
  await fake?.stop();
  scratch?.cleanup(`${PREFIX}-`);
  await redis?.cleanup();
  await tdb?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
  unlock?.();
}, 300_000);

async function run(runId: string, conf: Record<string, unknown>, timeoutMs: number): Promise<string> {
  const started = Date.now();
  await api.triggerDagRun(DAG, { runId, conf });
  const state = await waitFor(
    async () => {
      const r = await tdb.db.selectFrom("dag_run").select("state").where("dag_id", "=", DAG).where("run_id", "=", runId).executeTakeFirst();
      return r && (r.state === "success" || r.state === "failed") ? r.state : undefined;
    },
    { timeoutMs, intervalMs: 2000, what: `run ${runId}` },
  );
  const rows = await tdb.db.selectFrom("task_instance").selectAll().where("dag_id", "=", DAG).where("run_id", "=", runId).execute();
  process.stdout.write(`[cloud identity] ${runId}: ${state} in ${Math.round((Date.now() - started) / 1000)} s: ${taskSeconds(rows)}\n`);
  if (state !== "success") {
    const failed = await tdb.db.selectFrom("task_instance").select("task_id").where("dag_id", "=", DAG).where("run_id", "=", runId).where("state", "=", "failed").execute();
    for (const t of failed) {
      const lines = await tdb.db
        .selectFrom("task_log")
        .select("line")
        .where("dag_id", "=", DAG)
        .where("run_id", "=", runId)
        .where("task_id", "=", t.task_id)
        .orderBy("id")
        .execute();
      process.stderr.write(
        `--- ${t.task_id}:\n${lines
          .map((l) => l.line)
          .slice(-40)
          .join("\n")}\n`,
      );
    }
  }
  return state;
}
const server = () => [...fake.servers.values()].find((s) => s.name === VM);
const ip = () => String(server()!.public_net.ipv4.ip);
/** The 127.0.0.1 port the fake cloud's network gives a client for the server's proto/port (only what its firewall opens). */
const reach = (proto: "tcp" | "udp", port: number) => {
  const p = fake.portOf(ip(), proto, port);
  if (!p) throw new Error(`the fake cloud carries no ${proto}/${port} to ${VM}`);
  return p;
};
const sh = (cmd: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  spawnSync(cmd, args, { encoding: "utf8", timeout: 120_000, input: opts.input, env: { ...process.env, ...opts.env } });
const domstate = () => spawnSync("virsh", ["-c", "qemu:///system", "domstate", `${PREFIX}-${VM}`], { encoding: "utf8" });

test("create on the cloud host ends success, its server carrying one firewall of svc's, and the host-side steps skipped", async () => {
  expect(await run("idm-create", CONF, 2_700_000)).toBe("success");
  const tis = await tdb.db.selectFrom("task_instance").select(["task_id", "state"]).where("dag_id", "=", DAG).where("run_id", "=", "idm-create").execute();
  const state = Object.fromEntries(tis.map((t) => [t.task_id, t.state]));
  expect(state).toMatchObject({ create_vm: "success", wait_ssh: "success", configure: "success", verify: "success", register_record: "skipped", record_product: "skipped" });
  expect(fake.firewalls.size).toBe(1);
  const fw = [...fake.firewalls.values()][0]!;
  expect(fw.labels).toEqual({ "managed-by": "svc", "svc-vm": VM });
  expect(server()!.public_net.firewalls).toEqual([{ id: fw.id, status: "applied" }]);
  expect(domstate().stdout.trim()).toBe("running");
  // svc's SSH went through the bastion to the server's address, and nowhere else.
  expect(new Set(bastion.forwards)).toEqual(new Set([`${ip()}:22`]));
}, 2_800_000);

test("the firewall the fake received opens exactly the identity ports to allow_from, and SSH to the bastion's address only", () => {
  const fw = [...fake.firewalls.values()][0]!;
  const rules = (fw.rules as Record<string, unknown>[]).map((r) => `${String(r.direction)} ${String(r.protocol)}/${String(r.port)} from ${(r.source_ips as string[]).join(",")}`);
  const allowed = [...ALLOW].sort().join(",");
  expect(rules.sort()).toEqual(
    ["in tcp/22 from 127.0.0.1/32", ...["tcp/53", "udp/53", "tcp/88", "udp/88", "tcp/389", "tcp/464", "udp/464", "tcp/636"].map((p) => `in ${p} from ${allowed}`)].sort(),
  );
  // What the firewall does not name, the fake cloud's network does not carry.
  expect(fake.portOf(ip(), "tcp", 445)).toBeUndefined();
  expect(fake.portOf(ip(), "tcp", 3268)).toBeUndefined();
});

test("dig through the forwarded DNS port answers the domain's SRV records", () => {
  const dig = (name: string, type: string) => sh("dig", ["+tcp", "+short", "+time=20", "+tries=3", "-p", String(reach("tcp", 53)), "@127.0.0.1", name, type]).stdout.trim();
  expect(dig(`_ldap._tcp.${DOMAIN}`, "SRV")).toMatch(new RegExp(`^0 100 389 ${VM}\\.${DOMAIN.replace(/\./g, "\\.")}\\.$`, "m"));
  expect(dig(`_kerberos._udp.${DOMAIN}`, "SRV")).toMatch(new RegExp(`^0 100 88 ${VM}\\.${DOMAIN.replace(/\./g, "\\.")}\\.$`, "m"));
});

test("kinit admin@REALM with the vault password succeeds through the forwarded KDC port; a wrong one fails", () => {
  const conf = path.join(work, "krb5.conf");
  writeFileSync(
    conf,
    `[libdefaults]\n default_realm = ${REALM}\n dns_lookup_kdc = false\n dns_lookup_realm = false\n udp_preference_limit = 1\n[realms]\n ${REALM} = {\n  kdc = 127.0.0.1:${reach("tcp", 88)}\n }\n`,
  );
  const env = { KRB5_CONFIG: conf, KRB5CCNAME: `FILE:${path.join(work, "ccache")}` };
  const good = sh("kinit", [`admin@${REALM}`], { input: `${PASSWORD}\n`, env });
  expect(good.stderr).not.toMatch(/error|failed/i);
  expect(good.status).toBe(0);
  expect(sh("klist", [], { env }).stdout).toContain(`krbtgt/${REALM}@${REALM}`);
  const bad = sh("kinit", [`admin@${REALM}`], { input: `${PASSWORD}x\n`, env: { ...env, KRB5CCNAME: `FILE:${path.join(work, "ccache-bad")}` } });
  expect(bad.status).not.toBe(0);
});

test("delete removes the server, its VM and its firewall object; the host-side steps skipped", async () => {
  expect(server()).toBeDefined();
  expect(await run("idm-delete", { host: "hz-test", action: "delete", vm_name: VM, domain: DOMAIN }, 600_000)).toBe("success");
  const tis = await tdb.db.selectFrom("task_instance").select(["task_id", "state"]).where("dag_id", "=", DAG).where("run_id", "=", "idm-delete").execute();
  expect(Object.fromEntries(tis.map((t) => [t.task_id, t.state]))).toMatchObject({ delete_vm: "success", remove_record: "skipped", remove_product: "skipped" });
  expect(fake.servers.size).toBe(0);
  expect(fake.firewalls.size).toBe(0);
  expect(domstate().status).not.toBe(0);
}, 700_000);
