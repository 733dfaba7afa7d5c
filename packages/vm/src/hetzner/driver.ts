import { createHash } from "node:crypto";
import { cloudInitUserData } from "../cloud-init";
import { ImageNotFoundError, VmExistsError, VmForeignError, VmInputError } from "../errors";
import { keyFingerprints } from "../aws/keypair";
import { pickSize, type CloudSize } from "../aws/sizes";
import { assertFirewallRules } from "../firewall";
import { assertVmName } from "../names";
import { cloudImageList } from "../cloud/image-list";
import { infoByName } from "../cloud/info-by-name";
import { cloudSshAddress } from "../cloud/ssh-address";
import type { CreateOptions, CreateResult, DeleteOptions, DeleteResult, HourlyPrice, ImageInfo, VmDriver, VmInfo, VmSpec } from "../types";
import { createVmFirewall, removeVmFirewalls } from "./firewall";
import { planHetznerVm, type CloudPlanRequest, type CloudVmPlan } from "../cloud-plan";
import { HetznerClient, hetznerHourlyPrice, type HcAction, type HcImage, type HcServer, type HcServerType, type HcSshKey } from "./client";

/** OS names (as on libvirt) → Hetzner's system image names. */
export const HETZNER_IMAGES: Record<string, string> = {
  debian12: "debian-12",
  debian13: "debian-13",
  ubuntu2204: "ubuntu-22.04",
  ubuntu2404: "ubuntu-24.04",
  rocky9: "rocky-9",
  centos9stream: "centos-stream-9",
  alma9: "alma-9",
};

export interface HetznerDriverSettings {
  location: string;
  network?: string;
  endpoint?: string;
  /** `vault_hcloud_token`, given by the caller. */
  token: string;
  sshUser?: string;
  timeoutMs?: number;
  pollMs?: number;
}

const STATE: Record<string, string> = { off: "shut off" };
const SELECTOR = "managed-by=svc";

/** VMs as Hetzner Cloud servers in one location, through a small typed client over fetch. */
export class HetznerDriver implements VmDriver {
  readonly name = "hetzner" as const;
  private readonly api: HetznerClient;
  private types?: Promise<HcServerType[]>;

  constructor(private readonly s: HetznerDriverSettings) {
    this.api = new HetznerClient({ token: s.token, ...(s.endpoint ? { endpoint: s.endpoint } : {}) });
  }

  private get where(): string {
    return `hetzner ${this.s.location}`;
  }

  private wait(a: HcAction, o: CreateOptions = {}) {
    return this.api.waitAction(a, { timeoutMs: o.waitTimeoutMs ?? this.s.timeoutMs ?? 600_000, pollMs: this.s.pollMs ?? 2000, ...(o.signal ? { signal: o.signal } : {}) });
  }

  /** What a VM would be here (size, image, hourly price), creating nothing: what the plan shows before approval. */
  plan(want: CloudPlanRequest): Promise<CloudVmPlan> {
    return planHetznerVm(this.api, this.s.location, HETZNER_IMAGES, want);
  }

  private serverTypes(): Promise<HcServerType[]> {
    this.types ??= this.api.all<HcServerType>("/server_types", "server_types").catch((e: unknown) => {
      this.types = undefined;
      throw e;
    });
    return this.types;
  }

  /** The hourly price of a server type in this location, from server_types (gross; Hetzner bills in EUR). */
  async hourlyPrice(size: string): Promise<HourlyPrice | null> {
    return hetznerHourlyPrice(await this.serverTypes(), size, this.s.location);
  }

  async sizes(): Promise<CloudSize[]> {
    const types = await this.serverTypes();
    return types
      .filter((t) => !t.deprecated && t.architecture === "x86" && t.prices.some((p) => p.location === this.s.location))
      .map((t) => ({ name: t.name, cpus: t.cores, memory_mb: Math.round(t.memory * 1024) }));
  }

  private toInfo(sv: HcServer): VmInfo {
    const pub = sv.public_net.ipv4?.ip ?? null;
    const priv = sv.private_net[0]?.ip ?? null;
    const created = new Date(sv.created);
    return {
      name: sv.name,
      state: STATE[sv.status] ?? sv.status,
      image: sv.labels["svc-image"] ?? sv.image?.name ?? null,
      memory_mb: Math.round(sv.server_type.memory * 1024),
      cpus: sv.server_type.cores,
      disks: [],
      nets: this.s.network ? [this.s.network] : [],
      macs: [],
      iso: null,
      ...cloudSshAddress(pub, priv, sv.labels["managed-by"], this.s.sshUser),
      forwards: [],
      driver: this.name,
      cloud: {
        provider: "hetzner",
        region: this.s.location,
        zone: sv.datacenter.location.name,
        instance_id: String(sv.id),
        size: sv.server_type.name,
        image_id: String(sv.image?.id ?? ""),
        public_ip: pub,
        private_ip: priv,
        labels: sv.labels,
        launched_at: created.toISOString(),
        age_s: Math.max(0, Math.round((Date.now() - created.getTime()) / 1000)),
      },
    };
  }

  private async byName(name: string): Promise<HcServer | undefined> {
    return (await this.api.request<{ servers: HcServer[] }>("GET", `/servers?name=${encodeURIComponent(name)}`)).servers[0];
  }

  /**
   * What the token reaches. Hetzner has no "whoami" and a token belongs to one project: the project is
   * shown by what it holds (its server count and SSH key names), from two authenticated calls.
   */
  async identity(): Promise<Record<string, string>> {
    type Page = { meta?: { pagination?: { total_entries?: number } } };
    const servers = await this.api.request<{ servers: unknown[] } & Page>("GET", "/servers?per_page=1");
    const keys = await this.api.request<{ ssh_keys: HcSshKey[] } & Page>("GET", "/ssh_keys?per_page=50");
    const count = servers.meta?.pagination?.total_entries ?? servers.servers.length;
    const names = keys.ssh_keys.map((k) => k.name);
    return { provider: "hetzner", location: this.s.location, project_servers: String(count), project_ssh_keys: names.length ? names.join(",") : "(none)" };
  }

  async list(opts: { all?: boolean } = {}): Promise<VmInfo[]> {
    const q = opts.all ? "/servers" : `/servers?label_selector=${encodeURIComponent(SELECTOR)}`;
    return (await this.api.all<HcServer>(q, "servers")).map((sv) => this.toInfo(sv)).sort((a, b) => a.name.localeCompare(b.name));
  }

  info(name: string): Promise<VmInfo> {
    return infoByName(name, this.byName.bind(this), this.toInfo.bind(this));
  }

  listImages(): Promise<ImageInfo[]> {
    return cloudImageList(HETZNER_IMAGES, (img) => ({ path: `hetzner:${img}`, description: `Hetzner image ${img}` }));
  }

  private async sshKey(pub: string): Promise<string> {
    const prints = keyFingerprints(pub);
    const keys = await this.api.all<HcSshKey>("/ssh_keys", "ssh_keys");
    const found = keys.find((k) => prints.has(k.fingerprint));
    if (found) return found.name;
    const name = `svc-${createHash("sha256").update(pub.trim().split(/\s+/)[1]!).digest("hex").slice(0, 16)}`;
    await this.api.request("POST", "/ssh_keys", { name, public_key: pub.trim(), labels: { "managed-by": "svc" } });
    return name;
  }

  async create(spec: VmSpec, opts: CreateOptions = {}): Promise<CreateResult> {
    assertVmName(spec.name);
    if (opts.wait) throw new VmInputError("a hetzner driver does not wait for SSH itself: the workflow does (wait_ssh)");
    if (spec.iso || spec.forwards?.length || spec.macs?.length || spec.nets.length)
      throw new VmInputError("a hetzner server takes no iso, forwards, macs or nets (its network is the host's)");
    const image = spec.image ? HETZNER_IMAGES[spec.image] : undefined;
    if (!spec.image || !image) throw new ImageNotFoundError(spec.image ?? "", Object.keys(HETZNER_IMAGES), `${this.where}'s image map`);
    if (spec.firewall) assertFirewallRules(spec.firewall);
    const images = (await this.api.request<{ images: HcImage[] }>("GET", `/images?type=system&name=${encodeURIComponent(image)}`)).images;
    if (!images.some((i) => i.status === "available")) throw new ImageNotFoundError(spec.image, [], `${this.where}: no available system image '${image}'`);
    const size = pickSize(await this.sizes(), spec, this.where);
    const existing = await this.byName(spec.name);
    if (existing) {
      if (existing.labels["managed-by"] !== "svc") throw new VmForeignError(spec.name, "create");
      const run = existing.labels["svc-run-id"];
      if (opts.owner && run && run !== opts.owner.runId && !(opts.adoptSameDag && existing.labels["svc-dag-id"] === opts.owner.dagId))
        throw new VmExistsError(spec.name, `made by run ${run}`, "owner");
      if (existing.labels["svc-image"] !== spec.image || existing.server_type.name !== size.name)
        throw new VmExistsError(spec.name, `${existing.labels["svc-image"]}/${existing.server_type.name}`);
      return { info: this.toInfo(existing), created: false };
    }
    const keys = spec.sshKeys[0] ? [await this.sshKey(spec.sshKeys[0])] : [];
    const labels: Record<string, string> = {
      "managed-by": "svc",
      "svc-image": spec.image,
      ...(opts.owner ? { "svc-dag-id": opts.owner.dagId, "svc-run-id": opts.owner.runId, "svc-task-id": opts.owner.taskId } : {}),
    };
    const fw = spec.firewall ? await createVmFirewall(this.api, spec.name, spec.firewall) : undefined;
    const r = await this.api
      .request<{ server: HcServer; action: HcAction; next_actions: HcAction[] }>("POST", "/servers", {
        ...(fw ? { firewalls: [{ firewall: fw }] } : {}),
        name: spec.name,
        server_type: size.name,
        image,
        location: this.s.location,
        ssh_keys: keys,
        user_data: cloudInitUserData({ hostname: spec.name, user: this.s.sshUser ?? "svc", sshKeys: spec.sshKeys }),
        labels,
        start_after_create: true,
        ...(this.s.network ? { networks: [this.s.network] } : {}),
      })
      .catch(async (e: unknown) => {
        if (fw) await removeVmFirewalls(this.api, spec.name).catch(() => undefined);
        throw e;
      });
    opts.onProgress?.(`${spec.name}: server ${r.server.id} created`);
    try {
      await this.wait(r.action, opts);
      for (const a of r.next_actions) await this.wait(a, opts);
      return { info: this.toInfo((await this.byName(spec.name)) ?? r.server), created: true };
    } catch (e) {
      opts.onProgress?.(`${spec.name}: deleting server ${r.server.id}: ${(e as Error).message}`);
      await this.remove(r.server.id).catch(() => undefined);
      if (fw) await removeVmFirewalls(this.api, spec.name).catch(() => undefined);
      throw e;
    }
  }

  private async remove(id: number): Promise<void> {
    const r = await this.api.request<{ action: HcAction }>("DELETE", `/servers/${id}`);
    await this.wait(r.action);
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    assertVmName(name);
    const sv = await this.byName(name);
    if (!sv) return { name, deleted: false, note: `VM '${name}' does not exist in ${this.where}` };
    if (sv.labels["managed-by"] !== "svc" && !opts.forceForeign) throw new VmForeignError(name, "delete");
    await this.remove(sv.id);
    await removeVmFirewalls(this.api, name);
    return { name, deleted: true };
  }
}
