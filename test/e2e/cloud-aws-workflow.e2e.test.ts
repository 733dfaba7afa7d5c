import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createHostService } from "@svc/hosts";
import { createTestDb, createTestRedis, freePort, type TestDb } from "@svc/testing";
import { REPO_ROOT } from "./stack";
import { engineTestEnv, startVmDeploymentEngine, vmDeploymentWork, type VmDeploymentEngine } from "./engine-env";
import { MOTO_REGION, startMotoDebian } from "./moto-debian";

// vm_deployment on an AWS host against moto_server, through the worker's routing and the AWS
// driver called in its process. moto's instances are records: no try connects to an address moto
// invents. The host's bastion is a closed port on 127.0.0.1, so a wait for SSH fails there (the
// bastion is never reached, the instance's address never contacted) and the rollback runs.
jest.setTimeout(240_000);

const REGION = MOTO_REGION;
const P = `ca${process.pid % 100000}`;
const BASTION_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";

let aws: Awaited<ReturnType<typeof startMotoDebian>>;
let tdb: TestDb;
let redis: ReturnType<typeof createTestRedis>;
let work: string;
let config: SvcConfig;
let engine: VmDeploymentEngine | undefined;

beforeAll(async () => {
  aws = await startMotoDebian();
  tdb = await createTestDb("cloudaws");
  redis = createTestRedis("cloudaws");
  let dagsDir: string;
  ({ work, dagsDir } = vmDeploymentWork("cloudaws"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "svc@test", "-f", path.join(work, "id_ed25519")]);
  config = {
    ...loadConfig({
      ...engineTestEnv(tdb, redis, dagsDir),
      SVC_SSH_HOST: "local",
      SVC_INVENTORY_DIR: path.join(work, "inventory"),
      SVC_PLAYBOOKS_DIR: path.join(REPO_ROOT, "playbooks"),
      SVC_VM_DEFAULT_IMAGE: "debian12",
      SVC_VM_DEFAULT_NETWORK: "user",
    }),
    reconcileIntervalMs: 2000,
  };
  const hosts = createHostService({ db: tdb.db });
  await hosts.addCloud(
    {
      name: "aws-test",
      provider: "aws",
      settings: { region: REGION, endpoint: aws.moto.endpoint, bastion: `svc@127.0.0.1:${await freePort()}` },
      key_path: path.join(work, "id_ed25519"),
      bastion_key: BASTION_KEY,
    },
    { probe: false, actor: "test" },
  );
  // The worker's factory, as the worker's main makes it from the host's row and the secrets file;
  // here the keys are moto's and the image map points at the AMI startMotoDebian registered.
  engine = await startVmDeploymentEngine(tdb.db, config, redis, dagsDir, async (r) => aws.driverOf(r));
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  await aws?.stop();
  await redis?.cleanup();
  await tdb?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

const run = (runId: string, conf: Record<string, unknown>) => engine!.run(runId, { host: "aws-test", memory_mb: 1024, cpus: 1, ...conf });

const tis = async (runId: string) =>
  Object.fromEntries(
    (await tdb.db.selectFrom("task_instance").select(["task_id", "state", "output", "host"]).where("dag_id", "=", "vm_deployment").where("run_id", "=", runId).execute()).map(
      (t) => [t.task_id, t],
    ),
  );
const logOf = (runId: string, taskId: string) => engine!.logOf(runId, taskId);
const instances = (name: string) => aws.instances(name);

test("wait_ssh false: vm_deployment on the AWS host creates the instance with svc's tags and IMDSv2, and returns without contacting it", async () => {
  const name = `${P}-nowait`;
  expect(await run("nowait", { vm_name: name, wait_ssh: false })).toBe("success");
  const t = await tis("nowait");
  expect(t.create_vm).toMatchObject({ state: "success", host: "aws-test" });
  expect(t.create_vm!.output).toMatchObject({ name, provider: "aws", region: REGION, host: "aws-test", created: true, instance_id: expect.stringMatching(/^i-/) });
  for (const skipped of ["wait_ssh", "configure", "verify", "cleanup_on_failure"]) expect(t[skipped]?.state).toBe("skipped");
  expect(t.report?.state).toBe("success");
  const [i] = await instances(name);
  expect(i?.State?.Name).toBe("running");
  expect(i?.MetadataOptions?.HttpTokens).toBe("required");
  expect(Object.fromEntries((i?.Tags ?? []).map((x) => [x.Key, x.Value]))).toMatchObject({ "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": "nowait" });
  expect(await logOf("nowait", "create_vm")).toEqual(expect.arrayContaining([expect.stringMatching(/^creating VM .* on cloud host aws-test \(aws eu-west-1\)/)]));
  // Deleting it through the same workflow terminates it.
  expect(await run("nowait-del", { action: "delete", vm_name: name })).toBe("success");
  expect((await instances(name)).map((x) => x.State?.Name)).toEqual(["terminated"]);
});

test("a create whose SSH wait fails (the bastion does not answer) is rolled back: the instance is terminated; the console was read first and had no keys", async () => {
  const name = `${P}-roll`;
  expect(await run("roll", { vm_name: name, ssh_wait_timeout: 10 })).toBe("failed");
  const t = await tis("roll");
  expect(t.create_vm?.state).toBe("success");
  expect(t.wait_ssh?.state).toBe("failed");
  expect(t.cleanup_on_failure?.state).toBe("success");
  expect(await logOf("roll", "wait_ssh")).toEqual(expect.arrayContaining([expect.stringMatching(/through the bastion svc@127\.0\.0\.1:\d+/)]));
  // Before the first contact the driver read the instance's console (GetConsoleOutput): moto's sample
  // holds no cloud-init key block, so the wait says the keys would be trusted on first use.
  const id = String((t.create_vm!.output as { instance_id?: unknown }).instance_id);
  expect(await logOf("roll", "wait_ssh")).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`^no SSH host keys in the EC2 console output of ${id} \\(\\d+ lines\\) within \\d+ s .*: the keys are trusted on first use$`)),
    ]),
  );
  expect((await instances(name)).map((x) => x.State?.Name)).toEqual(["terminated"]);
});

test("keep_on_failure true keeps the instance of a failed create", async () => {
  const name = `${P}-keep`;
  expect(await run("keep", { vm_name: name, ssh_wait_timeout: 10, keep_on_failure: true })).toBe("failed");
  const t = await tis("keep");
  expect(t.wait_ssh?.state).toBe("failed");
  expect(t.cleanup_on_failure?.state).toBe("skipped");
  expect((await instances(name)).map((x) => x.State?.Name)).toEqual(["running"]);
  expect(await run("keep-del", { action: "delete", vm_name: name })).toBe("success");
  expect((await instances(name)).map((x) => x.State?.Name)).toEqual(["terminated"]);
});
