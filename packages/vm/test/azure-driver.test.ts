import { Agent } from "node:https";
import { VmForeignError, VmInputError } from "../src/errors";
import { CloudApiError } from "../src/aws/errors";
import { AzureDriver } from "../src/azure/driver";
import { azureCredentialsFromSecrets, type AzureDriverSettings } from "../src/azure/settings";
import { startAzureFake, type AzureFake } from "./azure-fake";
import { sshKey, baseSpec, describeCloudConformance } from "./cloud-test-helpers";

// The Azure driver (@azure/arm-compute, arm-network, arm-resources, @azure/identity's client secret)
// against a fake of Resource Manager and of the Entra ID token endpoint, over TLS with a CA made for
// the run, on 127.0.0.1. Its VMs are records: nothing connects to their addresses.
jest.setTimeout(60_000);

const KEY = sshKey("svc@test");
let fake: AzureFake;
let driver: AzureDriver;
let settings: (over?: Partial<AzureDriverSettings>) => AzureDriverSettings;

beforeAll(async () => {
  fake = await startAzureFake();
  const credentials = azureCredentialsFromSecrets({ vault_azure_tenant_id: fake.tenant, vault_azure_client_id: fake.clientId, vault_azure_client_secret: fake.clientSecret });
  const agent = new Agent({ ca: fake.ca.caPem });
  settings = (over = {}) => ({
    subscription: fake.subscription,
    location: fake.location,
    resourceGroup: fake.resourceGroup,
    endpoint: fake.endpoint,
    authorityHost: fake.authorityHost,
    credentials,
    agent,
    pollMs: 10,
    ...over,
  });
  driver = new AzureDriver(settings());
});
afterAll(() => fake?.stop());

describeCloudConformance("azure (fake Resource Manager)", { prefix: "az", sshKey: KEY, sized: { memory_mb: 1024, cpus: 1 }, otherSpec: { memoryMb: 3000 } }, () => driver);

describe("AzureDriver against the fake Resource Manager", () => {
  it("makes a public IP, a NIC and the VM, tagged, with cloud-init as customData and the smallest fitting size", async () => {
    const r = await driver.create({ ...baseSpec, name: "web1", memoryMb: 3000, sshKeys: [KEY] }, { owner: { dagId: "vm_deployment", runId: "r1", taskId: "create" } });
    expect(r.info.cloud).toMatchObject({
      provider: "azure",
      region: "westeurope",
      size: "Standard_B2s",
      labels: { "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": "r1" },
    });
    expect(r.info.ssh_host).toMatch(/^198\.51\.100\./);
    expect(fake.made().sort()).toEqual(["disks/web1-osdisk", "networkInterfaces/web1-nic", "publicIPAddresses/web1-ip", "virtualMachines/web1"]);
    for (const x of fake.resources.values()) if (x.type !== "Microsoft.Network/virtualNetworks") expect(x.tags["managed-by"]).toBe("svc");
    expect(fake.customData.get("web1")).toMatch(/^#cloud-config\nhostname: "web1"/);
    const puts = fake.requests.filter((q) => q.method === "PUT").map((q) => q.path.split("?")[1]);
    expect(puts.every((v) => /^api-version=20\d\d-\d\d-\d\d$/.test(v!))).toBe(true);
  });

  it("lists by the tag managed-by=svc; all lists every VM; a foreign VM is refused", async () => {
    const vm = [...fake.resources.values()].find((x) => x.name === "web1")!;
    const id = vm.id.replace(/web1$/, "theirs");
    fake.resources.set(id.toLowerCase(), { ...vm, id, name: "theirs", tags: {} });
    expect((await driver.list()).map((v) => v.name)).not.toContain("theirs");
    expect((await driver.list({ all: true })).map((v) => v.name)).toContain("theirs");
    await expect(driver.delete("theirs")).rejects.toBeInstanceOf(VmForeignError);
    fake.resources.delete(id.toLowerCase());
  });

  it("names the nearest sizes for an unknown one", async () => {
    const e = await driver.create({ ...baseSpec, name: "old", size: "Standard_B2" }).catch((x) => x);
    expect(e).toBeInstanceOf(VmInputError);
    expect(e.message).toMatch(/size 'Standard_B2' is not offered in azure westeurope; nearest: Standard_B2s/);
  });

  it("deletes the VM with its NIC, public IP and OS disk", async () => {
    expect(await driver.delete("web1")).toMatchObject({ deleted: true });
    expect(fake.made()).toEqual([]);
  });

  it.each([
    ["the public IP step hits the quota", () => (fake.quota.publicIPs = 0), /PublicIPCountLimitReached/],
    [
      "the NIC step answers 409",
      () => fake.failNext("networkInterfaces", 409, "AnotherOperationInProgress", "Another operation on this or dependent resource is in progress."),
      /AnotherOperationInProgress/,
    ],
    [
      "the VM step exceeds the cores quota",
      () => (fake.quota.cores = 0),
      /OperationNotAllowed: Operation could not be completed as it results in exceeding approved Total Regional Cores quota/,
    ],
  ])("a create where %s is the provider's error and leaves nothing behind", async (_what, arrange, msg) => {
    arrange();
    const e = await driver.create({ ...baseSpec, name: "part", sshKeys: [KEY] }).catch((x) => x);
    fake.quota.publicIPs = 50;
    fake.quota.cores = 64;
    expect(e).toBeInstanceOf(CloudApiError);
    expect(e.message).toMatch(msg);
    expect(fake.made()).toEqual([]);
  });

  it("makes the VM's NSG with exactly the ports to the sources given, on its NIC, tagged, and removes it with the VM", async () => {
    const firewall = [
      { proto: "tcp" as const, port: 22, from: ["192.0.2.10/32"] },
      { proto: "udp" as const, port: 53, from: ["198.51.100.0/24", "203.0.113.0/24"] },
    ];
    await driver.create({ ...baseSpec, name: "dns1", sshKeys: [KEY], firewall });
    const nsg = [...fake.resources.values()].find((x) => x.type === "Microsoft.Network/networkSecurityGroups")!;
    expect(nsg).toMatchObject({ name: "dns1-nsg", tags: { "managed-by": "svc", "svc-vm": "dns1" } });
    expect(nsg.properties.securityRules.map((r: any) => ({ ...r.properties, provisioningState: undefined }))).toEqual([
      {
        priority: 100,
        direction: "Inbound",
        access: "Allow",
        protocol: "Tcp",
        sourceAddressPrefixes: ["192.0.2.10/32"],
        sourcePortRange: "*",
        destinationAddressPrefix: "*",
        destinationPortRange: "22",
      },
      {
        priority: 101,
        direction: "Inbound",
        access: "Allow",
        protocol: "Udp",
        sourceAddressPrefixes: ["198.51.100.0/24", "203.0.113.0/24"],
        sourcePortRange: "*",
        destinationAddressPrefix: "*",
        destinationPortRange: "53",
      },
    ]);
    const nic = [...fake.resources.values()].find((x) => x.name === "dns1-nic")!;
    expect(nic.properties.networkSecurityGroup.id.toLowerCase()).toBe(nsg.id.toLowerCase());
    await driver.delete("dns1");
    expect(fake.made()).toEqual([]);
    fake.quota.cores = 0;
    await expect(driver.create({ ...baseSpec, name: "dns2", firewall })).rejects.toThrow(/OperationNotAllowed/);
    fake.quota.cores = 64;
    expect(fake.made()).toEqual([]);
  });

  it("refuses a wrong client secret with Entra ID's error, naming no secret", async () => {
    const bad = new AzureDriver(settings({ credentials: { tenantId: fake.tenant, clientId: fake.clientId, clientSecret: "wrong-secret" } }));
    const e = await bad.identity().catch((x) => x);
    expect(e.message).toMatch(/AADSTS7000215/);
    expect(e.message).not.toContain("wrong-secret");
    expect((await driver.identity()).resource_group).toBe(fake.resourceGroup);
  });
});
