import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import request from "supertest";
import { loadConfig, type SvcConfig } from "@svc/config";
import { createHostService } from "@svc/hosts";
import { createTestDb, createTestRedis, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../../services/web-ui/src/app";
import { HetznerDriver } from "../../packages/vm/src/hetzner/driver";
import { startHetznerFake, type HetznerFake } from "../../packages/vm/test/hetzner-fake";
import { engineTestEnv, startVmDeploymentEngine, vmDeploymentWork, type VmDeploymentEngine } from "./engine-env";
import { MOTO_REGION, startMotoDebian } from "./moto-debian";

// vm_deployment's placement and size params over REST (POST /api/v1/dags/vm_deployment/dagRuns),
// with an AWS host (moto) and a Hetzner host (the fake) in the inventory and no host named: the
// provider or region picks the host, size (or instance_type / server_type) the provider's size.
// Every run is wait_ssh false: no SSH to an address moto or the fake invented.
jest.setTimeout(120_000);

const REGION = MOTO_REGION;
const P = `pp${process.pid % 100000}`;
const TOKEN = { op: "op-token-0123456789abcdef", user: "user-token-0123456789abcd" };

let aws: Awaited<ReturnType<typeof startMotoDebian>>;
let fake: HetznerFake;
let tdb: TestDb;
let redis: ReturnType<typeof createTestRedis>;
let work: string;
let config: SvcConfig;
let engine: VmDeploymentEngine | undefined;

beforeAll(async () => {
  aws = await startMotoDebian();
  fake = await startHetznerFake("hc-place-token", { machines: { boot: () => Promise.resolve({ sshPort: 9 }), remove: () => Promise.resolve() } });
  tdb = await createTestDb("cloudplace");
  redis = createTestRedis("cloudplace");
  let dagsDir: string;
  ({ work, dagsDir } = vmDeploymentWork("cloudplace"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "svc@test", "-f", path.join(work, "id_ed25519")]);
  config = {
    ...loadConfig({ ...engineTestEnv(tdb, redis, dagsDir), SVC_SSH_HOST: "local", SVC_INVENTORY_DIR: path.join(work, "inventory"), SVC_VM_DEFAULT_IMAGE: "debian12" }),
    reconcileIntervalMs: 2000,
  };
  const hosts = createHostService({ db: tdb.db });
  const key_path = path.join(work, "id_ed25519");
  await hosts.addCloud({ name: "aws-test", provider: "aws", settings: { region: REGION, endpoint: aws.moto.endpoint }, key_path }, { probe: false, actor: "test" });
  await hosts.addCloud({ name: "hz-test", provider: "hetzner", settings: { location: "fsn1", endpoint: fake.endpoint }, key_path }, { probe: false, actor: "test" });
  engine = await startVmDeploymentEngine(tdb.db, config, redis, dagsDir, async (r) =>
    r.provider === "aws"
      ? aws.driverOf(r)
      : new HetznerDriver({ location: r.provider_settings.location!, endpoint: r.provider_settings.endpoint!, token: fake.token, pollMs: 100 }),
  );
}, 120_000);

afterAll(async () => {
  await engine?.stop();
  await aws?.stop();
  await fake?.stop();
  await redis?.cleanup();
  await tdb?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

const trigger = (role: keyof typeof TOKEN, runId: string, conf: Record<string, unknown>) =>
  request(createWebUiApp({ api: engine!.api, auth: { apiToken: TOKEN[role], apiTokenRole: role } }))
    .post("/api/v1/dags/vm_deployment/dagRuns")
    .set("Authorization", `Bearer ${TOKEN[role]}`)
    .send({ dag_run_id: runId, conf: { wait_ssh: false, ...conf } });

async function run(runId: string, conf: Record<string, unknown>) {
  const res = await trigger("op", runId, conf);
  expect(res.status).toBe(200);
  return engine!.ended(runId, 90_000);
}
const ti = (runId: string, taskId: string) => engine!.ti(runId, taskId);
const logOf = async (runId: string, taskId: string) => (await engine!.logOf(runId, taskId)).join("\n");
const instances = (name: string) => aws.instances(name);
const server = (name: string) => [...fake.servers.values()].find((s) => s.name === name);

test('{vm_name, provider: "hetzner"} without host places the VM on the Hetzner host; a user may not trigger it (it bills a cloud account)', async () => {
  const denied = await trigger("user", "hz-user", { vm_name: `${P}-u`, provider: "hetzner" });
  expect(denied.status).toBe(403);
  expect(String(denied.body.detail)).toMatch(/create_vm asks for the provider hetzner/);
  expect(await run("hz-prov", { vm_name: `${P}-h1`, provider: "hetzner" })).toBe("success");
  expect(await ti("hz-prov", "create_vm")).toMatchObject({ state: "success", host: "hz-test", output: expect.objectContaining({ provider: "hetzner", region: "fsn1" }) });
  expect(server(`${P}-h1`)).toBeDefined();
  expect(await instances(`${P}-h1`)).toEqual([]);
  expect(await run("hz-prov-del", { action: "delete", vm_name: `${P}-h1` })).toBe("success");
  expect(server(`${P}-h1`)).toBeUndefined();
});

test("region eu-west-1 with instance_type t3.micro places on the AWS host with that instance type", async () => {
  const name = `${P}-a1`;
  expect(await run("aws-size", { vm_name: name, region: REGION, instance_type: "t3.micro" })).toBe("success");
  expect(await ti("aws-size", "create_vm")).toMatchObject({ host: "aws-test", output: expect.objectContaining({ provider: "aws", size: "t3.micro" }) });
  expect((await instances(name)).map((i) => i.InstanceType)).toEqual(["t3.micro"]);
  expect(await run("aws-size-del", { action: "delete", vm_name: name })).toBe("success");
});

test("a retired server_type (cx22) is refused naming the nearest sizes offered; nothing is left", async () => {
  const name = `${P}-h2`;
  expect(await run("hz-retired", { vm_name: name, provider: "hetzner", server_type: "cx22" })).toBe("failed");
  expect((await ti("hz-retired", "create_vm")).state).toBe("failed");
  expect(await logOf("hz-retired", "create_vm")).toMatch(/size 'cx22' is not offered in hetzner fsn1; nearest: cx23/);
  expect(server(name)).toBeUndefined();
});

test("two different sizes (size and instance_type) are refused before anything is created", async () => {
  const name = `${P}-a2`;
  expect(await run("two-sizes", { vm_name: name, provider: "aws", size: "t3.micro", instance_type: "t3.small" })).toBe("failed");
  expect((await ti("two-sizes", "require_one_size")).state).toBe("failed");
  expect((await ti("two-sizes", "create_vm")).state).not.toBe("success");
  expect(await instances(name)).toEqual([]);
});

test("a host pinned with a provider it is not of is refused, not placed there nor elsewhere", async () => {
  const name = `${P}-h3`;
  expect(await run("pin-wrong", { vm_name: name, host: "hz-test", provider: "aws" })).toBe("failed");
  expect(await logOf("pin-wrong", "create_vm")).toMatch(/pins host 'hz-test', which is not what it asks \(provider hetzner, not aws\)/);
  expect(server(name)).toBeUndefined();
  expect(await instances(name)).toEqual([]);
});

test("a provider svc has no driver for is a 400 naming the param, and no run", async () => {
  const res = await trigger("op", "equinix", { vm_name: `${P}-e`, provider: "equinix" });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toMatch(/provider/);
  expect(await tdb.db.selectFrom("dag_run").select("run_id").where("run_id", "=", "equinix").execute()).toEqual([]);
});
