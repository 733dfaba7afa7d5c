import {
  DescribeInstanceAttributeCommand,
  DescribeInstancesCommand,
  DescribeKeyPairsCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  ImportKeyPairCommand,
  RegisterImageCommand,
  RunInstancesCommand,
} from "@aws-sdk/client-ec2";
import { VmForeignError, VmInputError, VmNotFoundError } from "../src/errors";
import { AwsDriver } from "../src/aws/driver";
import { CloudApiError, waitUntil } from "../src/aws/errors";
import { keyFingerprints } from "../src/aws/keypair";
import { describeVmDriverConformance } from "./driver-conformance";
import { startMoto, type Moto } from "@svc/testing";
import { sshKey } from "./cloud-test-helpers";

// The AWS driver through the official SDK against moto_server on 127.0.0.1 (EC2 and STS). moto's
// instances are records only: nothing here connects to an address moto invents (no SSH, no wait).
jest.setTimeout(120_000);

const REGION = "eu-west-1";
const KEYS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const MOTO_ACCOUNT = "123456789012";
const KEY = sshKey("svc@test");

let moto: Moto;
let ec2: EC2Client;
let driver: AwsDriver;
const images = { debian12: { owners: [MOTO_ACCOUNT], name: "debian-12-amd64-*" }, rocky9: { owners: [MOTO_ACCOUNT], name: "Rocky-9-EC2-Base-9.*x86_64*" } };
const make = (o: Partial<ConstructorParameters<typeof AwsDriver>[0]> = {}) =>
  new AwsDriver({ region: REGION, endpoint: moto.endpoint, credentials: KEYS, images, pollMs: 100, timeoutMs: 20_000, ...o });
let newest: string;

beforeAll(async () => {
  moto = await startMoto();
  ec2 = new EC2Client({ region: REGION, endpoint: moto.endpoint, credentials: KEYS });
  const reg = (Name: string) => ec2.send(new RegisterImageCommand({ Name, Architecture: "x86_64", RootDeviceName: "/dev/xvda", VirtualizationType: "hvm" }));
  await reg("debian-12-amd64-20250101-1");
  await new Promise((r) => setTimeout(r, 1100));
  newest = (await reg("debian-12-amd64-20260101-2")).ImageId!;
  await reg("debian-11-amd64-20260101-2");
  driver = make();
});

afterAll(async () => {
  ec2?.destroy();
  await moto?.stop();
});

const live = async (name: string) =>
  ((await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: "tag:Name", Values: [name] }] }))).Reservations ?? []).flatMap((r) => r.Instances ?? []);

describeVmDriverConformance("aws (moto)", () => ({ driver, image: "debian12", prefix: "conf", nets: [], sshKeys: [KEY], sized: { memory_mb: 512, cpus: 1 } }));

describe("AwsDriver against moto", () => {
  it("shows who the credentials are (sts:GetCallerIdentity)", async () => {
    expect(await driver.identity()).toEqual({
      provider: "aws",
      region: REGION,
      account: MOTO_ACCOUNT,
      arn: expect.stringMatching(/^arn:aws:sts::123456789012:/),
      user_id: expect.any(String),
    });
  });

  it("creates from the newest image of the OS, the smallest fitting type, IMDSv2 required, tagged, with cloud-init user data carrying no secret", async () => {
    const r = await driver.create(
      { name: "tagged", image: "debian12", memoryMb: 900, cpus: 1, disksGb: [12], nets: [], sshKeys: [KEY] },
      { owner: { dagId: "vm_deployment", runId: "run-1", taskId: "create" } },
    );
    expect(r.created).toBe(true);
    expect(r.info).toMatchObject({ name: "tagged", state: "running", image: "debian12", memory_mb: 1024, cpus: 1, ssh_user: "svc", driver: "aws" });
    expect(r.info.cloud).toMatchObject({ provider: "aws", region: REGION, size: "t2.micro", image_id: newest, instance_id: expect.stringMatching(/^i-/) });
    expect(r.info.cloud!.labels).toMatchObject({ Name: "tagged", "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": "run-1", "svc-image": "debian12" });
    const [i] = await live("tagged");
    expect(i!.MetadataOptions).toMatchObject({ HttpTokens: "required", HttpEndpoint: "enabled" });
    const ud = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: i!.InstanceId!, Attribute: "userData" }));
    const text = Buffer.from(ud.UserData!.Value!, "base64").toString();
    expect(text.split("\n").slice(0, 3)).toEqual(["#cloud-config", 'hostname: "tagged"', 'fqdn: "tagged"']);
    expect(text).toContain(JSON.stringify(KEY));
    expect(text).not.toMatch(new RegExp(`${KEYS.secretAccessKey.slice(0, 10)}|${KEYS.accessKeyId}|vault_`));
  });

  it("takes a size by name, and names the nearest sizes for an unknown one", async () => {
    const r = await driver.create({ name: "sized", image: "debian12", size: "t3.small", memoryMb: 1, cpus: 1, disksGb: [], nets: [], sshKeys: [] });
    expect(r.info.cloud!.size).toBe("t3.small");
    const e = await driver.create({ name: "badsize", image: "debian12", size: "t3.smal", memoryMb: 1, cpus: 1, disksGb: [], nets: [], sshKeys: [] }).catch((x) => x);
    expect(e).toBeInstanceOf(VmInputError);
    expect(e.message).toMatch(/size 't3.smal' is not offered in aws eu-west-1; nearest: t3.small/);
    expect(await live("badsize")).toEqual([]);
  });

  it("imports the key pair once and finds it again by fingerprint, also one imported under another name", async () => {
    const mine = async () => ((await ec2.send(new DescribeKeyPairsCommand({}))).KeyPairs ?? []).filter((k) => keyFingerprints(KEY).has(k.KeyFingerprint!));
    await driver.create({ name: "key2", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [KEY] });
    const pairs = await mine();
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.KeyName).toMatch(/^svc-[0-9a-f]{16}$/);
    expect((await live("key2"))[0]!.KeyName).toBe(pairs[0]!.KeyName);
    const other = sshKey("operator");
    await ec2.send(new ImportKeyPairCommand({ KeyName: "operators-own", PublicKeyMaterial: Buffer.from(other) }));
    await driver.create({ name: "key3", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [other] });
    expect((await live("key3"))[0]!.KeyName).toBe("operators-own");
  });

  it("lists what svc made by its tag; all: true lists every instance; a foreign one is refused for delete and create", async () => {
    await ec2.send(
      new RunInstancesCommand({
        ImageId: newest,
        InstanceType: "t3.nano",
        MinCount: 1,
        MaxCount: 1,
        TagSpecifications: [{ ResourceType: "instance", Tags: [{ Key: "Name", Value: "theirs" }] }],
      }),
    );
    expect((await driver.list()).map((v) => v.name)).not.toContain("theirs");
    expect((await driver.list()).map((v) => v.name)).toEqual(expect.arrayContaining(["tagged", "sized", "key2"]));
    expect((await driver.list({ all: true })).map((v) => v.name)).toContain("theirs");
    await expect(driver.delete("theirs")).rejects.toBeInstanceOf(VmForeignError);
    await expect(driver.create({ name: "theirs", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [] })).rejects.toBeInstanceOf(VmForeignError);
    expect((await live("theirs")).map((i) => i.State!.Name)).toEqual(["running"]);
  });

  it("refuses to adopt an instance of another run, and adopts one of the same DAG when asked", async () => {
    const spec = { name: "tagged", image: "debian12", memoryMb: 900, cpus: 1, disksGb: [12], nets: [], sshKeys: [KEY] };
    await expect(driver.create(spec, { owner: { dagId: "vm_deployment", runId: "run-2", taskId: "create" } })).rejects.toThrow(/belongs to another run \(made by run run-1/);
    const r = await driver.create(spec, { owner: { dagId: "vm_deployment", runId: "run-2", taskId: "create" }, adoptSameDag: true });
    expect(r).toMatchObject({ created: false, adopted: true });
  });

  it("rolls a create back when a later step fails: the instance launched is terminated", async () => {
    const ac = new AbortController();
    const lines: string[] = [];
    const onProgress = (l: string) => (lines.push(l), / launched$/.test(l) && ac.abort());
    await expect(
      driver.create({ name: "rollback", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [] }, { signal: ac.signal, onProgress }),
    ).rejects.toThrow(/cancelled/);
    expect(lines.some((l) => /terminating i-/.test(l))).toBe(true);
    expect((await live("rollback")).map((i) => i.State!.Name)).toEqual(["terminated"]);
    await expect(driver.info("rollback")).rejects.toBeInstanceOf(VmNotFoundError);
  });

  it("gives a VM its own security group with exactly the ingress rules given, tagged, in place of the host's, and deletes it with the VM", async () => {
    const firewall = [
      { proto: "tcp" as const, port: 22, from: ["192.0.2.10/32"] },
      { proto: "tcp" as const, port: 5000, toPort: 5001, from: ["198.51.100.0/24", "2001:db8::/32"] },
    ];
    const groups = async () => (await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: "group-name", Values: ["svc-reg1"] }] }))).SecurityGroups ?? [];
    await driver.create(
      { name: "reg1", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [KEY], firewall },
      { owner: { dagId: "registry", runId: "r9", taskId: "create" } },
    );
    const [g] = await groups();
    expect(Object.fromEntries((g!.Tags ?? []).map((t) => [t.Key, t.Value]))).toMatchObject({ "managed-by": "svc", "svc-dag-id": "registry", Name: "reg1" });
    expect(
      g!.IpPermissions!.map((p) => ({ proto: p.IpProtocol, from: p.FromPort, to: p.ToPort, v4: p.IpRanges?.map((r) => r.CidrIp), v6: p.Ipv6Ranges?.map((r) => r.CidrIpv6) })),
    ).toEqual([
      { proto: "tcp", from: 22, to: 22, v4: ["192.0.2.10/32"], v6: [] },
      { proto: "tcp", from: 5000, to: 5001, v4: ["198.51.100.0/24"], v6: ["2001:db8::/32"] },
    ]);
    const [i] = await live("reg1");
    expect(i!.SecurityGroups!.map((x) => x.GroupId)).toEqual([g!.GroupId]);
    await driver.delete("reg1");
    expect(await groups()).toEqual([]);
  });

  it("refuses what an instance cannot take, and waiting for SSH, before calling the API", async () => {
    const base = { name: "nope", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [] };
    await expect(driver.create({ ...base, nets: ["user"] })).rejects.toThrow(/no iso, forwards, macs or nets/);
    await expect(driver.create(base, { wait: true })).rejects.toThrow(/does not wait for SSH itself/);
    await expect(driver.create({ ...base, image: "rocky9" })).rejects.toThrow(/no available image of owner 123456789012 named 'Rocky-9/);
    expect(await live("nope")).toEqual([]);
  });

  it("bounds its waiters by the timeout and the signal", async () => {
    let polls = 0;
    const never = () => (polls++, Promise.resolve(undefined));
    await expect(waitUntil(never, { what: "instance i-1 running", timeoutMs: 300, pollMs: 50 })).rejects.toThrow(/^instance i-1 running: not reached within 0 s$/);
    expect(polls).toBeGreaterThan(1);
    expect(polls).toBeLessThan(12);
    const ac = new AbortController();
    ac.abort();
    await expect(waitUntil(never, { what: "instance i-1 terminated", timeoutMs: 60_000, pollMs: 50, signal: ac.signal })).rejects.toThrow(/cancelled/);
  });
});

describe("AwsDriver with bad credentials (moto's IAM authentication on)", () => {
  let authMoto: Moto;
  beforeAll(async () => {
    authMoto = await startMoto({ auth: true });
  });
  afterAll(async () => {
    await authMoto?.stop();
  });

  it("fails with the provider's own error, for identity and for a create, and shows no secret", async () => {
    const bad = new AwsDriver({ region: REGION, endpoint: authMoto.endpoint, credentials: { accessKeyId: "AKIANOTAREALKEY00000", secretAccessKey: "nope" }, images, pollMs: 100 });
    const e = await bad.identity().catch((x) => x);
    expect(e).toBeInstanceOf(CloudApiError);
    expect(e.message).toMatch(/^aws eu-west-1: GetCallerIdentity: InvalidClientTokenId: The security token included in the request is invalid/);
    expect(e.message).not.toContain("nope");
    await expect(bad.create({ name: "x1", image: "debian12", memoryMb: 384, cpus: 1, disksGb: [], nets: [], sshKeys: [] })).rejects.toThrow(/AuthFailure|InvalidClientTokenId/);
  });
});
