import { VmForeignError, VmInputError } from "../src/errors";
import { CloudApiError } from "../src/aws/errors";
import { GcpDriver } from "../src/gcp/driver";
import { gcpKeyFromSecrets } from "../src/gcp/settings";
import { startGcpFake, type GcpFake } from "./gcp-fake";
import { sshKey, baseSpec, describeCloudConformance } from "./cloud-test-helpers";

// The GCP driver (@google-cloud/compute over REST, google-auth-library's self-signed JWTs) against a
// fake of Compute Engine v1 on 127.0.0.1. Its instances are records: nothing connects to their addresses.
jest.setTimeout(60_000);

const KEY = sshKey("svc@test");
let fake: GcpFake;
let driver: GcpDriver;

beforeAll(async () => {
  fake = await startGcpFake();
  const credentials = gcpKeyFromSecrets({ vault_gcp_service_account_json: JSON.stringify(fake.key) });
  driver = new GcpDriver({ project: fake.project, zone: fake.zone, endpoint: fake.endpoint, credentials, timeoutMs: 10_000 });
});
afterAll(() => fake?.stop());

describeCloudConformance("gcp (fake Compute Engine API)", { prefix: "gc", sshKey: KEY, sized: { memory_mb: 1024, cpus: 2 }, otherSpec: { memoryMb: 3000 } }, () => driver);

describe("GcpDriver against the fake Compute Engine API", () => {
  it("inserts with user-data and ssh-keys metadata, labels, the family's image and the smallest machine type, and waits on the zone operation", async () => {
    const before = fake.requests.length;
    const r = await driver.create({ ...baseSpec, name: "web1", memoryMb: 3000, sshKeys: [KEY] }, { owner: { dagId: "vm_deployment", runId: "R1", taskId: "create" } });
    expect(r.info.cloud).toMatchObject({
      provider: "gcp",
      region: "europe-west1",
      zone: fake.zone,
      size: "e2-medium",
      labels: { "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": "r1" },
    });
    const i = fake.instances.get("web1")!;
    const md = Object.fromEntries(i.metadata.items.map((x: { key: string; value: string }) => [x.key, x.value]));
    expect(md["user-data"]).toMatch(/^#cloud-config\nhostname: "web1"/);
    expect(md["ssh-keys"]).toBe(`svc:${KEY}`);
    const insert = fake.requests.slice(before).find((q) => q.method === "POST" && q.path.endsWith("/instances"))!;
    expect(insert.body.disks[0].initializeParams.sourceImage).toMatch(/projects\/debian-cloud\/global\/images\/debian-12-bookworm-/);
    expect(fake.requests.slice(before).some((q) => /\/operations\/operation-[^/]+\/wait$/.test(q.path))).toBe(true);
  });

  it("lists with the label filter; all lists every instance; a foreign instance is refused", async () => {
    fake.instances.set("theirs", { ...fake.instances.get("web1")!, name: "theirs", labels: {} });
    expect((await driver.list()).map((v) => v.name)).not.toContain("theirs");
    expect((await driver.list({ all: true })).map((v) => v.name)).toContain("theirs");
    await expect(driver.delete("theirs")).rejects.toBeInstanceOf(VmForeignError);
    expect(fake.requests.some((q) => q.path.includes(`filter=${encodeURIComponent('labels.managed-by = "svc"')}`))).toBe(true);
    fake.instances.delete("theirs");
  });

  it("names the nearest machine types for an unknown one", async () => {
    const e = await driver.create({ ...baseSpec, name: "old", size: "e2-smal" }).catch((x) => x);
    expect(e).toBeInstanceOf(VmInputError);
    expect(e.message).toMatch(/size 'e2-smal' is not offered in gcp europe-west1-b; nearest: e2-small/);
  });

  it("a quota error in the insert operation is the provider's error, and leaves no instance", async () => {
    fake.quota.instances = fake.instances.size;
    const e = await driver.create({ ...baseSpec, name: "over" }).catch((x) => x);
    fake.quota.instances = 100;
    expect(e).toBeInstanceOf(CloudApiError);
    expect(e.message).toMatch(/QUOTA_EXCEEDED: Quota 'INSTANCES' exceeded/);
    expect(fake.instances.has("over")).toBe(false);
  });

  it("refuses a key the API does not accept with its own error, naming no secret", async () => {
    const other = gcpKeyFromSecrets({ vault_gcp_service_account_json: JSON.stringify({ ...fake.key, client_email: "intruder@x.iam.gserviceaccount.com" }) });
    const bad = new GcpDriver({ project: fake.project, zone: fake.zone, endpoint: fake.endpoint, credentials: other });
    const e = await bad.identity().catch((x) => x);
    expect(e).toBeInstanceOf(CloudApiError);
    expect(e.message).toMatch(/invalid authentication credentials/);
    expect(e.message).not.toContain("PRIVATE KEY");
  });

  it("makes the VM's firewall as rules on its network tag, exactly the ports to the sources given, and removes them with it", async () => {
    const firewall = [
      { proto: "tcp" as const, port: 22, from: ["192.0.2.10/32"] },
      { proto: "tcp" as const, port: 88, from: ["198.51.100.0/24"] },
      { proto: "udp" as const, port: 88, from: ["198.51.100.0/24"] },
      { proto: "tcp" as const, port: 636, from: ["198.51.100.0/24"] },
    ];
    await driver.create({ ...baseSpec, name: "idm1", sshKeys: [KEY], firewall });
    const tag = fake.instances.get("idm1")!.tags.items[0];
    const rules = [...fake.firewalls.values()].map((f) => ({ tags: f.targetTags, from: f.sourceRanges, allowed: f.allowed, direction: f.direction, description: f.description }));
    expect(rules).toEqual([
      { tags: [tag], from: ["192.0.2.10/32"], allowed: [{ IPProtocol: "tcp", ports: ["22"] }], direction: "INGRESS", description: "managed-by=svc vm=idm1" },
      {
        tags: [tag],
        from: ["198.51.100.0/24"],
        allowed: [
          { IPProtocol: "tcp", ports: ["88", "636"] },
          { IPProtocol: "udp", ports: ["88"] },
        ],
        direction: "INGRESS",
        description: "managed-by=svc vm=idm1",
      },
    ]);
    await driver.delete("idm1");
    expect(fake.firewalls.size).toBe(0);
    await expect(driver.create({ ...baseSpec, name: "idm2", firewall: [{ proto: "tcp", port: 22, from: ["0.0.0.0"] }] })).rejects.toThrow(/'0.0.0.0' is not a CIDR/);
    fake.quota.instances = 0;
    await expect(driver.create({ ...baseSpec, name: "idm3", firewall })).rejects.toThrow(/QUOTA_EXCEEDED/);
    fake.quota.instances = 100;
    expect([fake.firewalls.size, fake.instances.has("idm3")]).toEqual([0, false]);
  });

  it("deletes web1, waited on", async () => {
    expect(await driver.delete("web1")).toMatchObject({ deleted: true });
    expect(fake.instances.size).toBe(0);
  });
});
