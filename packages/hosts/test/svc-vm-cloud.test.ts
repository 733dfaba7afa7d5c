import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { EC2Client, RunInstancesCommand } from "@aws-sdk/client-ec2";
import { createTestDb, startCountingProxy, startMoto, type CountingProxy, type Moto, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { runVmHostsCli } from "../src/cli/vm-hosts";
import { cliTestEnv, writeVaultedSecrets } from "./cli-test-env";
import { startHetznerFake, type HetznerFake } from "../../vm/test/hetzner-fake";

// svc-vm -C <cloud host> / --all-hosts / --orphans against moto_server (EC2, STS) and the Hetzner
// fake on 127.0.0.1, the keys in a secrets file made by ansible-vault. The instances are records of
// the emulators: nothing connects to an address they invent (no --wait, no SSH). `local` is libvirt's
// test driver (test:///default), so the listing of every host needs no hypervisor here.
jest.setTimeout(180_000);

const KEYS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const DEBIAN = "136693071363";
let tdb: TestDb;
let moto: Moto;
let locked: Moto;
let proxy: CountingProxy;
let hz: HetznerFake;
let dir: string;
let env: Record<string, string>;
/** Round trips per operation, printed at the end (the numbers of the closing note). */
const trips: Record<string, number> = {};

type Out = { code: number; out: string; err: string; json: () => any };
const io = (sink: { out: string; err: string }) => ({
  out: (t: string) => void (sink.out += `${t}\n`),
  err: (t: string) => void (sink.err += `${t}\n`),
  env,
  isTTY: false,
  ask: async () => "",
});
async function vm(...argv: string[]): Promise<Out> {
  const s = { out: "", err: "" };
  const code = await runVmHostsCli(argv, io(s));
  return { code, ...s, json: () => JSON.parse(s.out) };
}
async function hosts(...argv: string[]): Promise<Out> {
  const s = { out: "", err: "" };
  const code = await runCli(argv, io(s));
  return { code, ...s, json: () => JSON.parse(s.out) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(os.tmpdir(), "svc-vm-cloud-"));
  // moto carries no Debian images: its images file gives it one of Debian's official account.
  const ami = { ami_id: "ami-0d3b1e0cafe0de12a", name: "debian-12-amd64-20260101-2000", owner_id: DEBIAN, state: "available", public: true };
  const rest = { image_type: "machine", architecture: "x86_64", virtualization_type: "hvm", hypervisor: "xen", root_device_type: "ebs", root_device_name: "/dev/xvda" };
  // (no creation_date: moto parses the loaded list again for each region and fails on its own parse)
  writeFileSync(join(dir, "amis.json"), JSON.stringify([{ ...ami, ...rest, description: "Debian 12" }]));
  [tdb, moto, locked, hz] = await Promise.all([createTestDb("vmcloud"), startMoto({ amis: join(dir, "amis.json") }), startMoto({ auth: true }), startHetznerFake()]);
  proxy = await startCountingProxy(moto.endpoint);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "svc@test", "-f", join(dir, "vm_key")]);
  writeFileSync(join(dir, "known_hosts"), "");
  writeVaultedSecrets(dir, `vault_aws_access_key_id: ${KEYS.accessKeyId}\nvault_aws_secret_access_key: ${KEYS.secretAccessKey}\nvault_hcloud_token: ${hz.token}\n`);
  env = {
    ...cliTestEnv(tdb.url, dir),
    SVC_VM_SSH_PUBKEY: join(dir, "vm_key.pub"),
    SVC_VAULT_PASSWORD_FILE: join(dir, "vault.pass"),
    SVC_LIBVIRT_URI: "test:///default",
    SVC_VM_DRIVER: "libvirt",
    SVC_VM_IMAGES_DIR: join(dir, "images"),
    SVC_VM_DISKS_DIR: join(dir, "vms"),
  };
  for (const args of [
    ["aws-test", "--provider", "aws", "--region", "eu-west-1", "--endpoint", proxy.endpoint],
    ["hz-test", "--provider", "hetzner", "--location", "fsn1", "--endpoint", hz.endpoint],
    ["aws-bad", "--provider", "aws", "--region", "eu-west-1", "--endpoint", locked.endpoint],
  ]) {
    expect((await hosts("add", ...args)).code).toBe(0);
  }
});

afterAll(async () => {
  if (Object.keys(trips).length) process.stdout.write(`cloud round trips (HTTP requests): ${JSON.stringify(trips)}\n`);
  await Promise.all([proxy?.stop(), moto?.stop(), locked?.stop(), hz?.stop()]);
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The requests an action made at the emulator. */
async function counted<T>(key: string, seen: { length: number }, fn: () => Promise<T>): Promise<T> {
  const before = seen.length;
  const r = await fn();
  trips[key] = seen.length - before;
  return r;
}

describe("svc-vm on a cloud host of the inventory", () => {
  it("creates c2 on aws-test (no SSH), lists it and shows it: provider, region, instance id, size, addresses, labels", async () => {
    const c = await counted("aws create", proxy.requests, () => vm("create", "vm", "c2", "-i", "debian12", "-C", "aws-test", "-o", "json"));
    expect(c).toMatchObject({ code: 0, out: expect.not.stringContaining('"error"') });
    const cloud = { provider: "aws", region: "eu-west-1", instance_id: expect.stringMatching(/^i-[0-9a-f]+$/), size: expect.any(String), image_id: "ami-0d3b1e0cafe0de12a" };
    expect(c.json()).toMatchObject({ host: "aws-test", name: "c2", created: true, driver: "aws", cloud: { ...cloud, labels: { "managed-by": "svc", Name: "c2" } } });
    expect(c.json().cloud.private_ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(c.out + c.err).not.toContain(KEYS.secretAccessKey);

    const l = await vm("list", "vm", "-C", "aws-test", "-o", "json");
    expect(l.code).toBe(0);
    expect(l.json()).toEqual([expect.objectContaining({ host: "aws-test", provider: "aws", region: "eu-west-1", name: "c2", cloud: expect.objectContaining(cloud) })]);

    const i = await vm("info", "vm", "c2", "-C", "aws-test", "-o", "json");
    expect(i.code).toBe(0);
    expect(i.json()).toMatchObject({ host: "aws-test", name: "c2", state: "running", cloud: { ...cloud, public_ip: expect.any(String), labels: { "managed-by": "svc" } } });
    const table = await vm("info", "vm", "c2", "-C", "aws-test");
    expect(table.out).toMatch(/provider: aws eu-west-1 .*instance i-[0-9a-f]+/);
  });

  it("list vm --all-hosts has the cloud VMs with provider and region, and a provider refusing the keys listed with its message", async () => {
    const r = await vm("list", "vm", "--all-hosts", "-o", "json");
    expect(r.code).toBe(0);
    const { vms: rows, unavailable } = r.json() as { vms: Record<string, unknown>[]; unavailable: unknown[] };
    expect(rows).toContainEqual(expect.objectContaining({ host: "aws-test", provider: "aws", region: "eu-west-1", name: "c2" }));
    expect(unavailable).toEqual([
      {
        host: "aws-bad",
        provider: "aws",
        region: "eu-west-1",
        error: "aws eu-west-1: DescribeInstances: AuthFailure: AWS was not able to validate the provided access credentials",
      },
    ]);
    expect(rows.filter((x) => x.host === "local").every((x) => x.provider === "libvirt" && x.region === null)).toBe(true);
    const t = await vm("list", "vm", "--all-hosts");
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/aws-test \(aws eu-west-1\)\s+c2\s+running/);
    expect(t.out).toMatch(/^host aws-bad \(aws eu-west-1\): not listed: .*AuthFailure/m);
  });

  it("refuses to delete an instance svc did not make, and delete vm c2 -y waits until it is gone", async () => {
    const ec2 = new EC2Client({ region: "eu-west-1", endpoint: moto.endpoint, credentials: KEYS });
    await ec2.send(
      new RunInstancesCommand({
        ImageId: "ami-0d3b1e0cafe0de12a",
        MinCount: 1,
        MaxCount: 1,
        InstanceType: "t3.micro",
        TagSpecifications: [{ ResourceType: "instance", Tags: [{ Key: "Name", Value: "theirs" }] }],
      }),
    );
    ec2.destroy();
    const f = await vm("delete", "vm", "theirs", "-y", "-C", "aws-test", "-o", "json");
    expect(f.code).toBe(7);
    expect(f.err).toMatch(/theirs/);
    expect((await vm("info", "vm", "theirs", "-C", "aws-test")).code).toBe(0);

    const d = await counted("aws delete", proxy.requests, () => vm("delete", "vm", "c2", "-y", "-C", "aws-test", "-o", "json"));
    expect(d.json()).toEqual({ host: "aws-test", name: "c2", deleted: true });
    const gone = await vm("info", "vm", "c2", "-C", "aws-test", "-o", "json");
    expect(gone.code).toBe(3);
    expect((await vm("list", "vm", "-C", "aws-test", "-o", "json")).json()).toEqual([]);
  });

  it("--orphans finds an instance whose run is gone from svc's records, with age and price (Hetzner's; none from AWS)", async () => {
    await tdb.db
      .insertInto("dag_run")
      .values({ dag_id: "vm_deployment", run_id: "r-c3", state: "success", run_type: "manual", conf: "{}", definition: "{}", dag_hash: "h", logical_date: new Date() })
      .execute();
    const owner = ["--owner-dag", "vm_deployment", "--owner-run", "r-c3", "--owner-task", "create_vm"];
    expect((await vm("create", "vm", "c3", "-i", "debian12", "-C", "aws-test", ...owner, "-o", "json")).code).toBe(0);
    const h = await counted("hetzner create", hz.requests, () => vm("create", "vm", "h1", "-i", "debian12", "-C", "hz-test", "-o", "json"));
    expect(h.json()).toMatchObject({ host: "hz-test", cloud: { provider: "hetzner", region: "fsn1", labels: { "managed-by": "svc" } } });

    const before = await vm("list", "vm", "--orphans", "-o", "json");
    expect(before.code).toBe(5); // aws-bad could not be checked: its orphans are unknown, not none
    expect(before.json().unavailable).toEqual([expect.objectContaining({ host: "aws-bad", error: expect.stringMatching(/AuthFailure: AWS was not able to validate/) })]);
    expect(before.json().orphans.map((o: { name: string }) => o.name)).toEqual(["h1"]);

    await tdb.db.deleteFrom("dag_run").where("run_id", "=", "r-c3").execute();
    const after = await vm("list", "vm", "--orphans", "-o", "json");
    const [c3, h1] = after.json().orphans;
    expect(c3).toMatchObject({
      host: "aws-test",
      provider: "aws",
      region: "eu-west-1",
      name: "c3",
      hourly_price: null,
      reason: "its run r-c3 of vm_deployment is not in svc's records",
    });
    expect(c3.instance_id).toMatch(/^i-/);
    expect(c3.age_s).toEqual(expect.any(Number));
    expect(h1).toMatchObject({ host: "hz-test", provider: "hetzner", name: "h1", hourly_price: { amount: expect.stringMatching(/^\d+\.\d+$/), currency: "EUR" } });
    expect(h1.reason).toMatch(/no svc-run-id label/);
    const t = await vm("list", "vm", "--orphans");
    expect(t.out).toMatch(/aws-test\s+aws\s+eu-west-1\s+c3\s+i-[0-9a-f]+\s+running\s+\S+\s+\d+m\s+- \(not in the API\)/);
    expect(t.out).toMatch(/hz-test\s+hetzner\s+fsn1\s+h1\s+\d+\s+running\s+\S+\s+\d+m\s+\d+\.\d+ EUR\/h/);
    expect(t.err).toMatch(/host 'aws-bad' \(aws eu-west-1\) not checked: .*AuthFailure/);

    await counted("hetzner delete", hz.requests, async () => expect((await vm("delete", "vm", "h1", "-y", "-C", "hz-test", "-o", "json")).json()).toMatchObject({ deleted: true }));
    expect((await vm("delete", "vm", "c3", "-y", "-C", "aws-test", "-o", "json")).json()).toMatchObject({ deleted: true });
  });
});
