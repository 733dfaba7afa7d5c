import { VmForeignError, VmInputError } from "../src/errors";
import { CloudApiError } from "../src/aws/errors";
import { HetznerClient } from "../src/hetzner/client";
import { HetznerDriver } from "../src/hetzner/driver";
import { startHetznerFake, type HetznerFake } from "./hetzner-fake";
import { sshKey, baseSpec, describeCloudConformance } from "./cloud-test-helpers";

// The Hetzner driver and its fetch client against a fake of the Hetzner Cloud API on 127.0.0.1.
// The fake's servers are records: nothing here connects to an address it invents.
jest.setTimeout(60_000);

const KEY = sshKey("svc@test");
let fake: HetznerFake;
let driver: HetznerDriver;

beforeAll(async () => {
  fake = await startHetznerFake();
  driver = new HetznerDriver({ location: "fsn1", endpoint: fake.endpoint, token: fake.token, pollMs: 20, timeoutMs: 10_000 });
});
afterAll(() => fake?.stop());

describeCloudConformance("hetzner (fake API)", { prefix: "hc", sshKey: KEY, sized: { memory_mb: 2048, cpus: 2 }, otherSpec: { memoryMb: 3500 } }, () => driver);

describe("HetznerDriver against the fake API", () => {
  it("creates with labels, cloud-init user data, the key uploaded once, the smallest non-deprecated x86 type", async () => {
    const r = await driver.create({ ...baseSpec, name: "web1", memoryMb: 3000, sshKeys: [KEY] }, { owner: { dagId: "vm_deployment", runId: "r1", taskId: "create" } });
    expect(r.info.cloud).toMatchObject({ provider: "hetzner", region: "fsn1", size: "cx23", labels: { "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": "r1" } });
    const sv = [...fake.servers.values()].find((s) => s.name === "web1")!;
    expect(sv.user_data).toMatch(/^#cloud-config\nhostname: "web1"/);
    expect(sv.user_data).toContain(JSON.stringify(KEY));
    await driver.create({ ...baseSpec, name: "web2", sshKeys: [KEY] });
    expect([...fake.sshKeys.values()].filter((k) => k.public_key === KEY)).toHaveLength(1);
  });

  it("lists by the label managed-by=svc; all lists every server; a foreign server is refused", async () => {
    fake.servers.set(1, { ...[...fake.servers.values()][0], id: 1, name: "theirs", labels: {} });
    expect((await driver.list()).map((v) => v.name)).not.toContain("theirs");
    expect((await driver.list({ all: true })).map((v) => v.name)).toContain("theirs");
    await expect(driver.delete("theirs")).rejects.toBeInstanceOf(VmForeignError);
    expect(fake.servers.has(1)).toBe(true);
    expect(fake.requests.some((r) => r.path.includes("label_selector=managed-by%3Dsvc"))).toBe(true);
  });

  it("names the nearest types for a retired or unknown size, and the fake answers its documented error for one", async () => {
    const e = await driver.create({ ...baseSpec, name: "old", size: "cx22" }).catch((x) => x);
    expect(e).toBeInstanceOf(VmInputError);
    expect(e.message).toMatch(/size 'cx22' is not offered in hetzner fsn1; nearest: cx23/);
    const api = new HetznerClient({ token: fake.token, endpoint: fake.endpoint });
    await expect(api.request("POST", "/servers", { name: "x", server_type: "cx99", image: "debian-12" })).rejects.toThrow(/invalid_input: invalid input in field 'server_type'/);
    await expect(api.request("POST", "/servers", { name: "x", server_type: "cx23", image: "debian-12", labels: { "bad key!": "v" } })).rejects.toThrow(
      /invalid input in field 'labels'/,
    );
    await expect(api.request("GET", "/servers?label_selector=%3D%3D")).rejects.toThrow(/invalid label selector/);
  });

  it("gives a server its own firewall with exactly the inbound rules given, labelled, and removes it after the server", async () => {
    const firewall = [
      { proto: "tcp" as const, port: 22, from: ["192.0.2.10/32"] },
      { proto: "tcp" as const, port: 80, toPort: 81, from: ["0.0.0.0/0", "::/0"] },
    ];
    await driver.create({ ...baseSpec, name: "rt1", sshKeys: [KEY], firewall });
    const [f] = [...fake.firewalls.values()];
    expect(f).toMatchObject({ name: "svc-rt1", labels: { "managed-by": "svc", "svc-vm": "rt1" } });
    expect(f!.rules.map((r: any) => [r.direction, r.protocol, r.port, r.source_ips])).toEqual([
      ["in", "tcp", "22", ["192.0.2.10/32"]],
      ["in", "tcp", "80-81", ["0.0.0.0/0", "::/0"]],
    ]);
    const sv = [...fake.servers.values()].find((s) => s.name === "rt1")!;
    expect(sv.public_net.firewalls).toEqual([{ id: f!.id, status: "applied" }]);
    await driver.delete("rt1");
    expect(fake.firewalls.size).toBe(0);
  });

  it("refuses a bad token with the provider's error", async () => {
    const bad = new HetznerDriver({ location: "fsn1", endpoint: fake.endpoint, token: "wrong" });
    const e = await bad.identity().catch((x) => x);
    expect(e).toBeInstanceOf(CloudApiError);
    expect(e.message).toMatch(/unauthorized: unable to authenticate/);
    expect(e.message).not.toContain("wrong");
  });

  it("backs off on 429 rate_limit_exceeded until RateLimit-Reset, then goes on", async () => {
    fake.rateLimit(1, 1);
    const before = fake.requests.length;
    const api = new HetznerClient({ token: fake.token, endpoint: fake.endpoint });
    expect((await api.request<{ locations: { name: string }[] }>("GET", "/locations")).locations.map((l) => l.name)).toContain("fsn1");
    expect(fake.requests.length - before).toBe(2);
    fake.rateLimit(1, 3600);
    const short = new HetznerClient({ token: fake.token, endpoint: fake.endpoint, maxWaitMs: 1000 });
    await expect(short.request("GET", "/locations")).rejects.toThrow(/rate_limit_exceeded until/);
  });
});
