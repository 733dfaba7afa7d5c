import { FirewallsClient, GlobalOperationsClient, ImagesClient, InstancesClient, MachineTypesClient, ZoneOperationsClient, type protos } from "@google-cloud/compute";
import { cloudInitUserData } from "../cloud-init";
import { ImageNotFoundError, VmExistsError, VmForeignError, VmInputError } from "../errors";
import { CloudApiError, CloudUnavailableError } from "../aws/errors";
import { pickSize, type CloudSize } from "../aws/sizes";
import { assertFirewallRules } from "../firewall";
import { assertVmName } from "../names";
import { cloudImageList } from "../cloud/image-list";
import { infoByName } from "../cloud/info-by-name";
import { cloudSshAddress } from "../cloud/ssh-address";
import type { CreateOptions, CreateResult, DeleteOptions, DeleteResult, HourlyPrice, ImageInfo, VmDriver, VmInfo, VmSpec } from "../types";
import { GcpFirewalls, gcpFirewallResources, gcpTag } from "./firewall";
import { GCP_IMAGES, gcpLabelValue, lastSegment } from "./images";
import { gcpAuth, gcpTransport, type GcpDriverSettings } from "./settings";

type Instance = protos.google.cloud.compute.v1.IInstance;
type Operation = protos.google.cloud.compute.v1.IOperation;

const STATE: Record<string, string> = { RUNNING: "running", TERMINATED: "shut off", STOPPING: "shutting down", SUSPENDED: "paused" };

/** A gax error as the provider's own code and message; HTTP answers are CloudApiError, the rest unavailable. */
function gcpError(what: string, e: unknown): Error {
  if (e instanceof CloudApiError || e instanceof CloudUnavailableError || e instanceof VmInputError) return e;
  const err = e as { code?: number; message?: string; statusDetails?: unknown };
  const msg = `${what}: ${err.message ?? String(e)}`;
  return typeof err.code === "number" ? new CloudApiError(msg) : new CloudUnavailableError(msg);
}
const notFound = (e: unknown) => [404, 5].includes((e as { code?: number }).code ?? 0);

/** VMs as Compute Engine instances in one zone, through @google-cloud/compute over its REST transport. */
export class GcpDriver implements VmDriver {
  readonly name = "gcp" as const;
  private readonly instances: InstancesClient;
  private readonly ops: ZoneOperationsClient;
  private readonly types: MachineTypesClient;
  private readonly images: ImagesClient;
  /** The VMs' own firewall rules (on their network tags). */
  readonly firewalls: GcpFirewalls;
  private sizesP?: Promise<(CloudSize & { url: string })[]>;

  constructor(private readonly s: GcpDriverSettings) {
    const opts = { projectId: s.project, ...gcpTransport(s.endpoint), ...gcpAuth(s.credentials) };
    this.instances = new InstancesClient(opts);
    this.ops = new ZoneOperationsClient(opts);
    this.types = new MachineTypesClient(opts);
    this.images = new ImagesClient(opts);
    this.firewalls = new GcpFirewalls(new FirewallsClient(opts), new GlobalOperationsClient(opts), s.project, (w, p) => this.call(w, p));
  }

  private get where(): string {
    return `gcp ${this.s.zone}`;
  }

  private get region(): string {
    return this.s.zone.replace(/-[a-z]$/, "");
  }

  private call<T>(what: string, p: Promise<T>): Promise<T> {
    return p.catch((e: unknown) => {
      throw gcpError(`${this.where}: ${what}`, e);
    });
  }

  /** Who the credentials are: the key's account and the project it reaches (one authenticated call). */
  async identity(): Promise<Record<string, string>> {
    await this.sizes();
    const who = this.s.credentials === "adc" ? "application default credentials" : this.s.credentials.client_email;
    return { provider: "gcp", project: this.s.project, zone: this.s.zone, account: who };
  }

  /** The zone's machine types (machineTypes.list), deprecated ones left out. */
  sizes(): Promise<(CloudSize & { url: string })[]> {
    this.sizesP ??= this.call("machineTypes.list", this.types.list({ project: this.s.project, zone: this.s.zone })).then(
      ([types]) =>
        types
          .filter((t) => !t.deprecated?.state && t.name && t.guestCpus && t.memoryMb)
          .map((t) => ({ name: t.name!, cpus: t.guestCpus!, memory_mb: t.memoryMb!, url: `zones/${this.s.zone}/machineTypes/${t.name}` })),
      (e: unknown) => {
        this.sizesP = undefined;
        throw e;
      },
    );
    return this.sizesP;
  }

  private async toInfo(i: Instance): Promise<VmInfo> {
    const labels = (i.labels ?? {}) as Record<string, string>;
    const size = lastSegment(i.machineType);
    const t = (await this.sizes()).find((x) => x.name === size);
    const nic = i.networkInterfaces?.[0];
    const pub = nic?.accessConfigs?.[0]?.natIP ?? null;
    const priv = nic?.networkIP ?? null;
    const created = i.creationTimestamp ? new Date(i.creationTimestamp) : null;
    const status = String(i.status ?? "UNKNOWN");
    return {
      name: i.name ?? "",
      state: STATE[status] ?? status.toLowerCase(),
      image: labels["svc-image"] ?? null,
      memory_mb: t?.memory_mb ?? null,
      cpus: t?.cpus ?? null,
      disks: (i.disks ?? []).map((d) => ({ path: lastSegment(d.source), size_gb: d.diskSizeGb ? Number(d.diskSizeGb) : null })),
      nets: nic?.network ? [lastSegment(nic.network)] : [],
      macs: [],
      iso: null,
      ...cloudSshAddress(pub, priv, labels["managed-by"], this.s.sshUser),
      forwards: [],
      driver: this.name,
      cloud: {
        provider: "gcp",
        region: this.region,
        zone: lastSegment(i.zone) || this.s.zone,
        instance_id: String(i.id ?? ""),
        size,
        image_id: lastSegment(i.disks?.[0]?.licenses?.[0]) || "",
        public_ip: pub,
        private_ip: priv,
        labels,
        launched_at: created?.toISOString() ?? null,
        age_s: created ? Math.max(0, Math.round((Date.now() - created.getTime()) / 1000)) : null,
      },
    };
  }

  private async get(name: string): Promise<Instance | undefined> {
    try {
      return (await this.instances.get({ project: this.s.project, zone: this.s.zone, instance: name }))[0];
    } catch (e) {
      if (notFound(e)) return undefined;
      throw gcpError(`${this.where}: instances.get`, e);
    }
  }

  async list(opts: { all?: boolean } = {}): Promise<VmInfo[]> {
    const [items] = await this.call(
      "instances.list",
      this.instances.list({ project: this.s.project, zone: this.s.zone, ...(opts.all ? {} : { filter: 'labels.managed-by = "svc"' }) }),
    );
    return (await Promise.all(items.map((i) => this.toInfo(i)))).sort((a, b) => a.name.localeCompare(b.name));
  }

  info(name: string): Promise<VmInfo> {
    return infoByName(name, this.get.bind(this), this.toInfo.bind(this));
  }

  /** None: the Compute API gives no prices (they are in the Cloud Billing Catalog API, which svc does not call). */
  hourlyPrice(): Promise<HourlyPrice | null> {
    return Promise.resolve(null);
  }

  listImages(): Promise<ImageInfo[]> {
    return cloudImageList(GCP_IMAGES, (img) => ({
      path: `gcp:projects/${img.project}/global/images/family/${img.family}`,
      description: `newest image of family ${img.family} in ${img.project}`,
    }));
  }

  /** Wait for a zone operation (zoneOperations.wait returns at DONE or after its own timeout); its error is thrown. */
  private async waitOp(op: Operation, o: { waitTimeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const deadline = Date.now() + (o.waitTimeoutMs ?? this.s.timeoutMs ?? 600_000);
    let cur = op;
    while (String(cur.status) !== "DONE") {
      if (o.signal?.aborted) throw new CloudUnavailableError(`${this.where}: operation ${op.name}: cancelled`);
      if (Date.now() > deadline) throw new CloudUnavailableError(`${this.where}: operation ${op.name} not done in time`);
      [cur] = await this.call("zoneOperations.wait", this.ops.wait({ project: this.s.project, zone: this.s.zone, operation: op.name! }));
    }
    const err = cur.error?.errors?.[0];
    if (err) throw new CloudApiError(`${this.where}: ${cur.operationType ?? "operation"} ${lastSegment(cur.targetLink)}: ${err.code}: ${err.message}`);
  }

  async create(spec: VmSpec, opts: CreateOptions = {}): Promise<CreateResult> {
    assertVmName(spec.name);
    if (opts.wait) throw new VmInputError("a gcp driver does not wait for SSH itself: the workflow does (wait_ssh)");
    if (spec.iso || spec.forwards?.length || spec.macs?.length || spec.nets.length)
      throw new VmInputError("a gcp instance takes no iso, forwards, macs or nets (its network is the host's)");
    const fam = spec.image ? GCP_IMAGES[spec.image] : undefined;
    if (!spec.image || !fam) throw new ImageNotFoundError(spec.image ?? "", Object.keys(GCP_IMAGES), `${this.where}'s image map`);
    if (spec.firewall) assertFirewallRules(spec.firewall);
    const [image] = await this.images.getFromFamily({ project: fam.project, family: fam.family }).catch((e: unknown) => {
      if (notFound(e)) throw new ImageNotFoundError(spec.image!, [], `${this.where}: no image in family ${fam.project}/${fam.family}`);
      throw gcpError(`${this.where}: images.getFromFamily`, e);
    });
    const size = pickSize(await this.sizes(), spec, this.where) as CloudSize & { url: string };
    const existing = await this.get(spec.name);
    if (existing) return this.adopt(spec, existing, size, opts);
    opts.onProgress?.(`${spec.name}: ${spec.image} is ${image.name}, size ${size.name} (${size.cpus} vCPU, ${size.memory_mb} MiB)`);
    const user = this.s.sshUser ?? "svc";
    const labels: Record<string, string> = {
      "managed-by": "svc",
      "svc-image": spec.image,
      ...(opts.owner ? { "svc-dag-id": gcpLabelValue(opts.owner.dagId), "svc-run-id": gcpLabelValue(opts.owner.runId), "svc-task-id": gcpLabelValue(opts.owner.taskId) } : {}),
    };
    const resource: Instance = {
      name: spec.name,
      machineType: size.url,
      labels,
      tags: { items: [gcpTag(spec.name)] },
      disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: image.selfLink ?? null, ...(spec.disksGb[0] ? { diskSizeGb: spec.disksGb[0] } : {}) } }],
      networkInterfaces: [
        {
          network: `global/networks/${this.s.network ?? "default"}`,
          ...(this.s.subnet ? { subnetwork: `regions/${this.region}/subnetworks/${this.s.subnet}` } : {}),
          accessConfigs: [{ name: "External NAT", type: "ONE_TO_ONE_NAT" }],
        },
      ],
      metadata: {
        items: [
          { key: "user-data", value: cloudInitUserData({ hostname: spec.name, user, sshKeys: spec.sshKeys }) },
          ...(spec.sshKeys.length ? [{ key: "ssh-keys", value: spec.sshKeys.map((k) => `${user}:${k.trim()}`).join("\n") }] : []),
        ],
      },
    };
    try {
      if (spec.firewall) await this.firewalls.create(gcpFirewallResources(spec.name, this.s.network ?? "default", spec.firewall));
      const [op] = await this.call("instances.insert", this.instances.insert({ project: this.s.project, zone: this.s.zone, instanceResource: resource }));
      opts.onProgress?.(`${spec.name}: insert operation ${op.name}`);
      await this.waitOp(op.latestResponse as Operation, opts);
      const made = await this.get(spec.name);
      if (!made) throw new CloudApiError(`${this.where}: instance ${spec.name} is missing after its insert`);
      return { info: await this.toInfo(made), created: true };
    } catch (e) {
      opts.onProgress?.(`${spec.name}: removing what the insert left: ${(e as Error).message}`);
      if (await this.get(spec.name).catch(() => undefined)) await this.remove(spec.name).catch(() => undefined);
      if (spec.firewall) await this.firewalls.remove(spec.name).catch(() => undefined);
      throw e;
    }
  }

  private async adopt(spec: VmSpec, i: Instance, size: CloudSize, opts: CreateOptions): Promise<CreateResult> {
    const labels = (i.labels ?? {}) as Record<string, string>;
    if (labels["managed-by"] !== "svc") throw new VmForeignError(spec.name, "create");
    const run = labels["svc-run-id"];
    if (opts.owner && run && run !== gcpLabelValue(opts.owner.runId) && !(opts.adoptSameDag && labels["svc-dag-id"] === gcpLabelValue(opts.owner.dagId)))
      throw new VmExistsError(spec.name, `made by run ${run}`, "owner");
    if (labels["svc-image"] !== spec.image || lastSegment(i.machineType) !== size.name) throw new VmExistsError(spec.name, `${labels["svc-image"]}/${lastSegment(i.machineType)}`);
    return { info: await this.toInfo(i), created: false, ...(opts.owner && run && run !== gcpLabelValue(opts.owner.runId) ? { adopted: true } : {}) };
  }

  private async remove(name: string): Promise<void> {
    const [op] = await this.call("instances.delete", this.instances.delete({ project: this.s.project, zone: this.s.zone, instance: name }));
    await this.waitOp(op.latestResponse as Operation);
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    assertVmName(name);
    const i = await this.get(name);
    if (!i) return { name, deleted: false, note: `VM '${name}' does not exist in ${this.where}` };
    if ((i.labels as Record<string, string> | undefined)?.["managed-by"] !== "svc" && !opts.forceForeign) throw new VmForeignError(name, "delete");
    await this.remove(name);
    await this.firewalls.remove(name);
    return { name, deleted: true };
  }
}
