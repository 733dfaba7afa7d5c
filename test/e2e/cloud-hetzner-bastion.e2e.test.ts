import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createEngineApi, createQueueNotifier, dagSettingsFromConfig, syncDagFolder } from "@svc/engine";
import { createHostService } from "@svc/hosts";
import { defaultOperators } from "@svc/operators";
import { createQueues } from "@svc/queue";
import { createTestDb, createTestRedis, startSshd, waitFor, type TestDb, type TestSshd } from "@svc/testing";
import { HetznerDriver } from "../../packages/vm/src/hetzner/driver";
import { startFakeBastion, type FakeBastion } from "../../packages/vm/test/fake-bastion";
import { startHetznerFake, type HetznerFake } from "../../packages/vm/test/hetzner-fake";
import { engineTestEnv, startCloudEngine, vmDeploymentWork } from "./engine-env";

// vm_deployment's SSH wait on a Hetzner host through its bastion, VM-less: the fake's server is
// backed by a test sshd on 127.0.0.1 (the "machine"), the bastion a fake's SSH server on 127.0.0.1
// that forwards a connection to the server's public address there. So the bastion path and trust
// on first use run for real and nothing connects to the address the fake invented. configure is
// off (the machine is this one); cloud-hetzner.e2e.test.ts runs the whole path on a real VM.
jest.setTimeout(240_000);

let tdb: TestDb;
let redis: ReturnType<typeof createTestRedis>;
let queues: ReturnType<typeof createQueues>;
let work: string;
let config: SvcConfig;
let api: ReturnType<typeof createEngineApi>;
let engine: Awaited<ReturnType<typeof startCloudEngine>> | undefined;
let sshd: TestSshd;
let fake: HetznerFake;
let bastion: FakeBastion;

beforeAll(async () => {
  sshd = await startSshd();
  fake = await startHetznerFake("hc-bastion-token", { machines: { boot: () => Promise.resolve({ sshPort: sshd.port }), remove: () => Promise.resolve() } });
  bastion = await startFakeBastion(`${sshd.keyPath}.pub`, (address, port) => fake.sshPortOf(address, port));
  tdb = await createTestDb("hzbastion");
  redis = createTestRedis("hzbastion");
  let dagsDir: string;
  ({ work, dagsDir } = vmDeploymentWork("hzbastion"));
  config = {
    ...loadConfig({
      ...engineTestEnv(tdb, redis, dagsDir),
      SVC_SSH_HOST: "local",
      SVC_INVENTORY_DIR: path.join(work, "inventory"),
      SVC_VM_DEFAULT_IMAGE: "debian12",
      SVC_VM_DEFAULT_NETWORK: "user",
    }),
    reconcileIntervalMs: 2000,
  };
  await createHostService({ db: tdb.db }).addCloud(
    {
      name: "hz-test",
      provider: "hetzner",
      settings: { location: "fsn1", endpoint: fake.endpoint, bastion: `root@127.0.0.1:${bastion.port}`, ssh_user: sshd.user },
      key_path: sshd.keyPath,
      bastion_key: bastion.hostKey,
    },
    { probe: false, actor: "test" },
  );
  queues = createQueues({ url: redis.url, prefix: redis.prefix });
  const operators = defaultOperators();
  await syncDagFolder({ db: tdb.db, dagsDir, catalog: operators, settings: dagSettingsFromConfig(config), notifier: createQueueNotifier(queues) });
  api = createEngineApi({ db: tdb.db, notifier: createQueueNotifier(queues), dagsDir, catalog: operators, settings: dagSettingsFromConfig(config) });
  await api.setPaused("vm_deployment", false);
  engine = await startCloudEngine(
    tdb.db,
    config,
    async (r) => new HetznerDriver({ location: r.provider_settings.location!, endpoint: r.provider_settings.endpoint!, token: fake.token, sshUser: sshd.user, pollMs: 100 }),
  );
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  await queues?.close();
  await bastion?.stop();
  await fake?.stop();
  await sshd?.stop();
  await redis?.cleanup();
  await tdb?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

async function run(runId: string, conf: Record<string, unknown>) {
  await api.triggerDagRun("vm_deployment", { runId, conf: { host: "hz-test", ...conf } });
  return waitFor(
    async () => {
      const r = await tdb.db.selectFrom("dag_run").select("state").where("dag_id", "=", "vm_deployment").where("run_id", "=", runId).executeTakeFirst();
      return r && (r.state === "success" || r.state === "failed") ? r.state : undefined;
    },
    { timeoutMs: 180_000, what: `run ${runId}` },
  );
}
const ti = (runId: string, taskId: string) =>
  tdb.db
    .selectFrom("task_instance")
    .select(["state", "output"])
    .where("dag_id", "=", "vm_deployment")
    .where("run_id", "=", runId)
    .where("task_id", "=", taskId)
    .executeTakeFirstOrThrow();
const logOf = async (runId: string, taskId: string) =>
  (await tdb.db.selectFrom("task_log").select("line").where("dag_id", "=", "vm_deployment").where("run_id", "=", runId).where("task_id", "=", taskId).orderBy("id").execute()).map(
    (r) => r.line,
  );

test("the SSH wait goes through the bastion to the server's address only, trusts the key on first use, says so and pins it; delete removes server and pin", async () => {
  expect(await run("jump", { vm_name: "j1", configure: false })).toBe("success");
  const sv = [...fake.servers.values()].find((s) => s.name === "j1")!;
  const ip = String(sv.public_net.ipv4.ip);
  const wait = await ti("jump", "wait_ssh");
  expect(wait.state).toBe("success");
  const hostKey = sshd.hostPublicKey.split(" ").slice(0, 2).join(" ");
  expect(wait.output).toMatchObject({ ssh_host: ip, ssh_port: 22, ssh_user: sshd.user, host_key_trust: "first-use", host_keys: [`${ip} ${hostKey}`] });
  expect(new Set(bastion.forwards)).toEqual(new Set([`${ip}:22`]));
  const log = (await logOf("jump", "wait_ssh")).join("\n");
  expect(log).toContain(`through the bastion root@127.0.0.1:${bastion.port}`);
  expect(log).toMatch(/Host keys trusted on first use \(hetzner prints none svc can read beforehand\), pinned in /);
  const pinned = path.join(work, "inventory", "cloud-known-hosts", "hz-test", "j1");
  expect(readFileSync(pinned, "utf8")).toBe(`${ip} ${hostKey}\n`);

  expect(await run("jump-del", { action: "delete", vm_name: "j1" })).toBe("success");
  expect(fake.servers.size).toBe(0);
  expect(existsSync(pinned)).toBe(false);
});
