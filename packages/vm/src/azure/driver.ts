import { ComputeManagementClient, type VirtualMachine } from "@azure/arm-compute";
import { NetworkManagementClient } from "@azure/arm-network";
import { ResourceManagementClient } from "@azure/arm-resources";
import { cloudInitUserData } from "../cloud-init";
import { ImageNotFoundError, VmExistsError, VmForeignError, VmInputError } from "../errors";
import { CloudApiError, CloudUnavailableError } from "../aws/errors";
import { pickSize, type CloudSize } from "../aws/sizes";
import { assertFirewallRules, portText } from "../firewall";
import { assertVmName } from "../names";
import { cloudImageList } from "../cloud/image-list";
import { infoByName } from "../cloud/info-by-name";
import { cloudSshAddress } from "../cloud/ssh-address";
import type { CreateOptions, CreateResult, DeleteOptions, DeleteResult, FirewallRule, HourlyPrice, ImageInfo, VmDriver, VmInfo, VmSpec } from "../types";
import { AZURE_IMAGES, azureCredential, type AzureDriverSettings } from "./settings";

const ARM = "https://management.azure.com";
const status = (e: unknown) => (e as { statusCode?: number }).statusCode;
const nameOf = (id: string | undefined) => (id ?? "").split("/").pop() ?? "";

/** An SDK error as the provider's code and message: an HTTP answer is CloudApiError, the rest unavailable. */
function azureError(what: string, e: unknown): Error {
  if (e instanceof CloudApiError || e instanceof CloudUnavailableError || e instanceof VmInputError) return e;
  const err = e as { code?: string; message?: string; statusCode?: number };
  const msg = `${what}: ${err.code ?? "Error"}: ${err.message ?? String(e)}`;
  return err.statusCode ? new CloudApiError(msg) : new CloudUnavailableError(msg);
}

/** The names of what svc makes for a VM: its NIC, public IP, OS disk and NSG. */
export const azureParts = (vm: string) => ({ nic: `${vm}-nic`, ip: `${vm}-ip`, disk: `${vm}-osdisk`, nsg: `${vm}-nsg` });

/** A VM's firewall as NSG rules: inbound allow, one per rule, priorities from 100 (Azure's defaults deny the rest). */
export const azureNsgRules = (rules: readonly FirewallRule[]) =>
  rules.map((r, i) => ({
    name: `svc-${r.proto}-${portText(r)}-${i}`,
    priority: 100 + i,
    direction: "Inbound" as const,
    access: "Allow" as const,
    protocol: r.proto === "tcp" ? ("Tcp" as const) : ("Udp" as const),
    sourceAddressPrefixes: [...new Set(r.from)].sort(),
    sourcePortRange: "*",
    destinationAddressPrefix: "*",
    destinationPortRange: portText(r),
  }));

/**
 * VMs in one Azure resource group and location, through @azure/arm-compute and @azure/arm-network. svc
 * makes each VM's public IP and NIC itself (new virtual networks give no default outbound access), tags
 * everything `managed-by=svc`, and a delete (or a failed create) removes the VM, NIC, public IP, OS disk
 * and the VM's NSG (spec.firewall).
 */
export class AzureDriver implements VmDriver {
  readonly name = "azure" as const;
  private readonly compute: ComputeManagementClient;
  private readonly network: NetworkManagementClient;
  private readonly resources: ResourceManagementClient;
  private sizesP?: Promise<CloudSize[]>;

  constructor(private readonly s: AzureDriverSettings) {
    const cred = azureCredential(s);
    const endpoint = (s.endpoint ?? ARM).replace(/\/$/, "");
    const scope = `${endpoint === ARM ? ARM : endpoint}/.default`;
    const common = { endpoint, ...(s.agent ? { agent: s.agent } : {}) };
    this.compute = new ComputeManagementClient(cred, s.subscription, { ...common, credentials: { scopes: [scope] } });
    this.network = new NetworkManagementClient(cred, s.subscription, { ...common, credentialScopes: [scope] });
    this.resources = new ResourceManagementClient(cred, s.subscription, { ...common, credentialScopes: [scope] });
  }

  private get where(): string {
    return `azure ${this.s.location}`;
  }

  private get poll() {
    return { updateIntervalInMs: this.s.pollMs ?? 2000 };
  }

  private call<T>(what: string, p: Promise<T>): Promise<T> {
    return p.catch((e: unknown) => {
      throw azureError(`${this.where}: ${what}`, e);
    });
  }

  /** A GET that is undefined on 404. */
  private async maybe<T>(what: string, p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (e) {
      if (status(e) === 404) return undefined;
      throw azureError(`${this.where}: ${what}`, e);
    }
  }

  /** Who the credentials are: the app and tenant, and the resource group they reach. */
  async identity(): Promise<Record<string, string>> {
    const rg = await this.call("resourceGroups.get", this.resources.resourceGroups.get(this.s.resourceGroup));
    return {
      provider: "azure",
      subscription: this.s.subscription,
      resource_group: rg.name ?? "",
      location: this.s.location,
      client_id: this.s.credentials.clientId,
      tenant_id: this.s.credentials.tenantId,
    };
  }

  /** The location's VM sizes (virtualMachineSizes.list). */
  sizes(): Promise<CloudSize[]> {
    this.sizesP ??= (async () => {
      const out: CloudSize[] = [];
      for await (const z of this.compute.virtualMachineSizes.list(this.s.location))
        if (z.name && z.numberOfCores && z.memoryInMB) out.push({ name: z.name, cpus: z.numberOfCores, memory_mb: z.memoryInMB });
      return out;
    })().catch((e: unknown) => {
      this.sizesP = undefined;
      throw azureError(`${this.where}: virtualMachineSizes.list`, e);
    });
    return this.sizesP;
  }

  private async toInfo(vm: VirtualMachine): Promise<VmInfo> {
    const tags = vm.tags ?? {};
    const size = vm.hardwareProfile?.vmSize ?? "";
    const t = (await this.sizes()).find((x) => x.name === size);
    const nic = await this.maybe("networkInterfaces.get", this.network.networkInterfaces.get(this.s.resourceGroup, nameOf(vm.networkProfile?.networkInterfaces?.[0]?.id)));
    const ipc = nic?.ipConfigurations?.[0];
    const pipName = nameOf(ipc?.publicIPAddress?.id);
    const pip = pipName ? await this.maybe("publicIPAddresses.get", this.network.publicIPAddresses.get(this.s.resourceGroup, pipName)) : undefined;
    const pub = pip?.ipAddress ?? null;
    const priv = ipc?.privateIPAddress ?? null;
    const power = vm.instanceView?.statuses?.find((x) => x.code?.startsWith("PowerState/"))?.code?.split("/")[1];
    const state = power === "running" ? "running" : power === "stopped" || power === "deallocated" ? "shut off" : (power ?? (vm.provisioningState ?? "unknown").toLowerCase());
    const created = vm.timeCreated ? new Date(vm.timeCreated) : null;
    const img = vm.storageProfile?.imageReference;
    return {
      name: vm.name ?? "",
      state,
      image: tags["svc-image"] ?? null,
      memory_mb: t?.memory_mb ?? null,
      cpus: t?.cpus ?? null,
      disks: vm.storageProfile?.osDisk?.name ? [{ path: vm.storageProfile.osDisk.name, size_gb: vm.storageProfile.osDisk.diskSizeGB ?? null }] : [],
      nets: this.s.vnet ? [this.s.vnet] : [],
      macs: nic?.macAddress ? [nic.macAddress.toLowerCase().replace(/-/g, ":")] : [],
      iso: null,
      ...cloudSshAddress(pub, priv, tags["managed-by"], this.s.sshUser),
      forwards: [],
      driver: this.name,
      cloud: {
        provider: "azure",
        region: this.s.location,
        zone: vm.zones?.[0] ?? null,
        instance_id: vm.vmId ?? vm.id ?? "",
        size,
        image_id: img ? `${img.publisher}:${img.offer}:${img.sku}:${img.exactVersion ?? img.version ?? "latest"}` : "",
        public_ip: pub,
        private_ip: priv,
        labels: tags,
        launched_at: created?.toISOString() ?? null,
        age_s: created ? Math.max(0, Math.round((Date.now() - created.getTime()) / 1000)) : null,
      },
    };
  }

  private get(name: string): Promise<VirtualMachine | undefined> {
    return this.maybe("virtualMachines.get", this.compute.virtualMachines.get(this.s.resourceGroup, name, { expand: "instanceView" }));
  }

  async list(opts: { all?: boolean } = {}): Promise<VmInfo[]> {
    const vms: VirtualMachine[] = [];
    await this.call(
      "virtualMachines.list",
      (async () => {
        for await (const vm of this.compute.virtualMachines.list(this.s.resourceGroup)) if (opts.all || vm.tags?.["managed-by"] === "svc") vms.push(vm);
      })(),
    );
    const full = await Promise.all(vms.map(async (vm) => (await this.get(vm.name!)) ?? vm));
    return (await Promise.all(full.map((vm) => this.toInfo(vm)))).sort((a, b) => a.name.localeCompare(b.name));
  }

  info(name: string): Promise<VmInfo> {
    return infoByName(name, this.get.bind(this), this.toInfo.bind(this));
  }

  /** None: Resource Manager gives no prices (they are in the Retail Prices API, which svc does not call). */
  hourlyPrice(): Promise<HourlyPrice | null> {
    return Promise.resolve(null);
  }

  listImages(): Promise<ImageInfo[]> {
    return cloudImageList(AZURE_IMAGES, (i) => ({ path: `azure:${i.publisher}:${i.offer}:${i.sku}:latest`, description: `${i.publisher} ${i.offer} ${i.sku}, newest` }));
  }

  /** The subnet NICs join: the host's, or svc's own virtual network made on first use. */
  private async subnetId(tags: Record<string, string>): Promise<string> {
    const vnet = this.s.vnet ?? "svc-vnet";
    const subnet = this.s.subnet ?? "default";
    const found = await this.maybe("subnets.get", this.network.subnets.get(this.s.resourceGroup, vnet, subnet));
    if (found?.id) return found.id;
    if (this.s.vnet) throw new VmInputError(`${this.where}: subnet ${subnet} of virtual network ${vnet} does not exist in ${this.s.resourceGroup}`);
    const made = await this.call(
      "virtualNetworks.createOrUpdate",
      this.network.virtualNetworks.beginCreateOrUpdateAndWait(
        this.s.resourceGroup,
        vnet,
        {
          location: this.s.location,
          tags: { "managed-by": tags["managed-by"]! },
          addressSpace: { addressPrefixes: ["10.0.0.0/16"] },
          subnets: [{ name: subnet, addressPrefix: "10.0.0.0/24" }],
        },
        this.poll,
      ),
    );
    const id = made.subnets?.find((x) => x.name === subnet)?.id;
    if (!id) throw new CloudApiError(`${this.where}: virtual network ${vnet} has no subnet ${subnet} after its creation`);
    return id;
  }

  async create(spec: VmSpec, opts: CreateOptions = {}): Promise<CreateResult> {
    assertVmName(spec.name);
    if (opts.wait) throw new VmInputError("an azure driver does not wait for SSH itself: the workflow does (wait_ssh)");
    if (spec.iso || spec.forwards?.length || spec.macs?.length || spec.nets.length)
      throw new VmInputError("an azure vm takes no iso, forwards, macs or nets (its network is the host's virtual network)");
    const img = spec.image ? AZURE_IMAGES[spec.image] : undefined;
    if (!spec.image || !img) throw new ImageNotFoundError(spec.image ?? "", Object.keys(AZURE_IMAGES), `${this.where}'s image map`);
    if (spec.firewall) assertFirewallRules(spec.firewall);
    const size = pickSize(await this.sizes(), spec, this.where);
    const existing = await this.get(spec.name);
    if (existing) return this.adopt(spec, existing, size, opts);
    opts.onProgress?.(`${spec.name}: ${spec.image} is ${img.publisher}:${img.offer}:${img.sku}:latest, size ${size.name} (${size.cpus} vCPU, ${size.memory_mb} MiB)`);
    const tags: Record<string, string> = {
      "managed-by": "svc",
      "svc-image": spec.image,
      "svc-vm": spec.name,
      ...(opts.owner ? { "svc-dag-id": opts.owner.dagId, "svc-run-id": opts.owner.runId, "svc-task-id": opts.owner.taskId } : {}),
    };
    const subnet = await this.subnetId(tags);
    const parts = azureParts(spec.name);
    const user = this.s.sshUser ?? "svc";
    const rg = this.s.resourceGroup;
    try {
      const nsg = spec.firewall
        ? await this.call(
            "networkSecurityGroups.createOrUpdate",
            this.network.networkSecurityGroups.beginCreateOrUpdateAndWait(
              rg,
              parts.nsg,
              { location: this.s.location, tags, securityRules: azureNsgRules(spec.firewall) },
              this.poll,
            ),
          )
        : undefined;
      const ip = await this.call(
        "publicIPAddresses.createOrUpdate",
        this.network.publicIPAddresses.beginCreateOrUpdateAndWait(
          rg,
          parts.ip,
          { location: this.s.location, tags, sku: { name: "Standard" }, publicIPAllocationMethod: "Static" },
          this.poll,
        ),
      );
      const nic = await this.call(
        "networkInterfaces.createOrUpdate",
        this.network.networkInterfaces.beginCreateOrUpdateAndWait(
          rg,
          parts.nic,
          {
            location: this.s.location,
            tags,
            ...(nsg?.id ? { networkSecurityGroup: { id: nsg.id } } : {}),
            ipConfigurations: [{ name: "ipconfig1", subnet: { id: subnet }, publicIPAddress: { id: ip.id! }, privateIPAllocationMethod: "Dynamic" }],
          },
          this.poll,
        ),
      );
      const userData = cloudInitUserData({ hostname: spec.name, user, sshKeys: spec.sshKeys });
      await this.call(
        "virtualMachines.createOrUpdate",
        this.compute.virtualMachines.createOrUpdate(
          rg,
          spec.name,
          {
            location: this.s.location,
            tags,
            hardwareProfile: { vmSize: size.name },
            storageProfile: {
              imageReference: { ...img, version: "latest" },
              osDisk: {
                name: parts.disk,
                createOption: "FromImage",
                deleteOption: "Delete",
                managedDisk: { storageAccountType: "StandardSSD_LRS" },
                ...(spec.disksGb[0] ? { diskSizeGB: spec.disksGb[0] } : {}),
              },
            },
            osProfile: {
              computerName: spec.name,
              adminUsername: user,
              customData: Buffer.from(userData).toString("base64"),
              linuxConfiguration: {
                disablePasswordAuthentication: true,
                ssh: { publicKeys: spec.sshKeys.map((k) => ({ path: `/home/${user}/.ssh/authorized_keys`, keyData: k.trim() })) },
              },
            },
            networkProfile: { networkInterfaces: [{ id: nic.id!, primary: true, deleteOption: "Delete" }] },
          },
          this.poll,
        ),
      );
      const vm = await this.get(spec.name);
      if (!vm) throw new CloudApiError(`${this.where}: VM ${spec.name} is missing after its creation`);
      return { info: await this.toInfo(vm), created: true };
    } catch (e) {
      opts.onProgress?.(`${spec.name}: removing what the create made: ${(e as Error).message}`);
      await this.removeAll(spec.name).catch(() => undefined);
      throw e;
    }
  }

  private async adopt(spec: VmSpec, vm: VirtualMachine, size: CloudSize, opts: CreateOptions): Promise<CreateResult> {
    const tags = vm.tags ?? {};
    if (tags["managed-by"] !== "svc") throw new VmForeignError(spec.name, "create");
    const run = tags["svc-run-id"];
    if (opts.owner && run && run !== opts.owner.runId && !(opts.adoptSameDag && tags["svc-dag-id"] === opts.owner.dagId))
      throw new VmExistsError(spec.name, `made by run ${run}`, "owner");
    if (tags["svc-image"] !== spec.image || vm.hardwareProfile?.vmSize !== size.name) throw new VmExistsError(spec.name, `${tags["svc-image"]}/${vm.hardwareProfile?.vmSize}`);
    return { info: await this.toInfo(vm), created: false, ...(opts.owner && run && run !== opts.owner.runId ? { adopted: true } : {}) };
  }

  /** Remove the VM and what svc made for it, each waited on; a part already gone is skipped (Azure answers 204). */
  private async removeAll(name: string): Promise<void> {
    const p = azureParts(name);
    const rg = this.s.resourceGroup;
    await this.call("virtualMachines.delete", this.compute.virtualMachines.delete(rg, name, this.poll));
    await this.call("networkInterfaces.delete", this.network.networkInterfaces.beginDeleteAndWait(rg, p.nic, this.poll));
    await this.call("publicIPAddresses.delete", this.network.publicIPAddresses.beginDeleteAndWait(rg, p.ip, this.poll));
    await this.call("disks.delete", this.compute.disks.delete(rg, p.disk, this.poll));
    await this.call("networkSecurityGroups.delete", this.network.networkSecurityGroups.beginDeleteAndWait(rg, p.nsg, this.poll));
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    assertVmName(name);
    const vm = await this.get(name);
    if (!vm) return { name, deleted: false, note: `VM '${name}' does not exist in ${this.where}` };
    if (vm.tags?.["managed-by"] !== "svc" && !opts.forceForeign) throw new VmForeignError(name, "delete");
    await this.removeAll(name);
    return { name, deleted: true };
  }
}
