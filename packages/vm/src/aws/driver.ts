import { createHash } from "node:crypto";
import { DescribeInstancesCommand, EC2Client, RunInstancesCommand, TerminateInstancesCommand, type Instance, type Tag } from "@aws-sdk/client-ec2";
import { fromNodeProviderChain } from "@aws-sdk/credential-providers";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { cloudInitUserData } from "../cloud-init";
import { VmExistsError, VmForeignError, VmInputError } from "../errors";
import { assertVmName } from "../names";
import { cloudImageList } from "../cloud/image-list";
import { infoByName } from "../cloud/info-by-name";
import { cloudSshAddress } from "../cloud/ssh-address";
import type { ConsoleHostKeys, CreateOptions, CreateResult, DeleteOptions, DeleteResult, HourlyPrice, ImageInfo, VmDriver, VmInfo, VmSpec } from "../types";
import { planAwsVm, type CloudPlanRequest, type CloudVmPlan } from "../cloud-plan";
import { awsConsoleHostKeys } from "./console";
import { cloudError, waitUntil } from "./errors";
import { AWS_IMAGES, resolveAwsImage } from "./images";
import { assertFirewallRules } from "../firewall";
import { createVmGroup, removeVmGroup } from "./firewall";
import { ensureKeyPair } from "./keypair";
import type { AwsDriverSettings } from "./settings";
import { awsInstanceTypes, pickSize, type CloudSize } from "./sizes";

const LIVE = ["pending", "running", "stopping", "stopped"];
const STATE: Record<string, string> = { stopped: "shut off", stopping: "shutting down", "shutting-down": "shutting down" };
const tagsOf = (i: Instance) => Object.fromEntries((i.Tags ?? []).map((t) => [t.Key ?? "", t.Value ?? ""]));

/** VMs as EC2 instances in one region, through the official SDK v3. Every instance svc makes is tagged `managed-by=svc`. */
export class AwsDriver implements VmDriver {
  readonly name = "aws" as const;
  private readonly ec2: EC2Client;
  private readonly sts: STSClient;
  private sizes?: Promise<CloudSize[]>;

  constructor(private readonly s: AwsDriverSettings) {
    const credentials = s.credentials === "default-chain" ? fromNodeProviderChain() : s.credentials;
    const cfg = { region: s.region, credentials, maxAttempts: 3, ...(s.endpoint ? { endpoint: s.endpoint } : {}) };
    this.ec2 = new EC2Client(cfg);
    this.sts = new STSClient(cfg);
  }

  private get where(): string {
    return `aws ${this.s.region}`;
  }

  private call<T>(what: string, p: Promise<T>): Promise<T> {
    return p.catch((e: unknown) => {
      throw cloudError(`${this.where}: ${what}`, e);
    });
  }

  /** Who the credentials are (sts:GetCallerIdentity). */
  async identity(): Promise<Record<string, string>> {
    const r = await this.call("GetCallerIdentity", this.sts.send(new GetCallerIdentityCommand({})));
    return { provider: "aws", region: this.s.region, account: r.Account ?? "", arn: r.Arn ?? "", user_id: r.UserId ?? "" };
  }

  /** What a VM would be here (size, image; EC2 gives no price), creating nothing: what the plan shows before approval. */
  plan(want: CloudPlanRequest): Promise<CloudVmPlan> {
    return planAwsVm(this.ec2, this.s.region, this.s.images ?? AWS_IMAGES, want).catch((e: unknown) => {
      // The SDK's errors as the provider's own line; svc's (an unknown size or OS) as they are.
      throw (e as { $metadata?: unknown }).$metadata ? cloudError(`${this.where}: plan`, e) : e;
    });
  }

  private instanceTypes(): Promise<CloudSize[]> {
    this.sizes ??= this.call("DescribeInstanceTypes", awsInstanceTypes(this.ec2)).catch((e: unknown) => {
      this.sizes = undefined;
      throw e;
    });
    return this.sizes;
  }

  private async instances(filters: { Name: string; Values: string[] }[]): Promise<Instance[]> {
    const out: Instance[] = [];
    let NextToken: string | undefined;
    do {
      const r = await this.call("DescribeInstances", this.ec2.send(new DescribeInstancesCommand({ Filters: filters, NextToken })));
      for (const res of r.Reservations ?? []) out.push(...(res.Instances ?? []));
      NextToken = r.NextToken;
    } while (NextToken);
    return out;
  }

  private async byName(name: string): Promise<Instance | undefined> {
    const found = await this.instances([
      { Name: "tag:Name", Values: [name] },
      { Name: "instance-state-name", Values: LIVE },
    ]);
    return found.find((i) => tagsOf(i)["managed-by"] === "svc") ?? found[0];
  }

  private async toInfo(i: Instance): Promise<VmInfo> {
    const tags = tagsOf(i);
    const size = (await this.instanceTypes()).find((t) => t.name === i.InstanceType);
    const launched = i.LaunchTime ? new Date(i.LaunchTime) : null;
    const pub = i.PublicIpAddress ?? null;
    const priv = i.PrivateIpAddress ?? null;
    const state = i.State?.Name ?? "unknown";
    return {
      name: tags.Name ?? i.InstanceId ?? "",
      state: STATE[state] ?? state,
      image: tags["svc-image"] ?? i.ImageId ?? null,
      memory_mb: size?.memory_mb ?? null,
      cpus: size?.cpus ?? null,
      disks: (i.BlockDeviceMappings ?? []).map((b) => ({ path: b.Ebs?.VolumeId ?? b.DeviceName ?? "", size_gb: null })),
      nets: i.SubnetId ? [i.SubnetId] : [],
      macs: (i.NetworkInterfaces ?? []).map((n) => n.MacAddress ?? "").filter(Boolean),
      iso: null,
      ...cloudSshAddress(pub, priv, tags["managed-by"], this.s.sshUser),
      forwards: [],
      driver: this.name,
      cloud: {
        provider: "aws",
        region: this.s.region,
        zone: i.Placement?.AvailabilityZone ?? null,
        instance_id: i.InstanceId ?? "",
        size: i.InstanceType ?? "",
        image_id: i.ImageId ?? "",
        public_ip: pub,
        private_ip: priv,
        labels: tags,
        launched_at: launched?.toISOString() ?? null,
        age_s: launched ? Math.max(0, Math.round((Date.now() - launched.getTime()) / 1000)) : null,
      },
    };
  }

  async list(opts: { all?: boolean } = {}): Promise<VmInfo[]> {
    const f = [{ Name: "instance-state-name", Values: LIVE }, ...(opts.all ? [] : [{ Name: "tag:managed-by", Values: ["svc"] }])];
    const infos = await Promise.all((await this.instances(f)).map((i) => this.toInfo(i)));
    return infos.sort((a, b) => a.name.localeCompare(b.name));
  }

  info(name: string): Promise<VmInfo> {
    return infoByName(name, this.byName.bind(this), this.toInfo.bind(this));
  }

  /** None: the EC2 API gives no prices (they are in the separate AWS Price List API, which svc does not call). */
  hourlyPrice(): Promise<HourlyPrice | null> {
    return Promise.resolve(null);
  }

  /** The OS names this region maps to images (not checked against the region until a create). */
  listImages(): Promise<ImageInfo[]> {
    return cloudImageList(this.s.images ?? AWS_IMAGES, (src) => ({
      path: `aws:${src.owners.join(",")}/${src.name}`,
      description: `newest '${src.name}' of ${src.owners.join(",")}`,
    }));
  }

  async create(spec: VmSpec, opts: CreateOptions = {}): Promise<CreateResult> {
    assertVmName(spec.name);
    if (opts.wait) throw new VmInputError("an aws driver does not wait for SSH itself: the workflow does (wait_ssh), on the address info gives");
    if (spec.iso || spec.forwards?.length || spec.macs?.length || spec.nets.length) {
      throw new VmInputError("an aws instance takes no iso, forwards, macs or nets (its network is the host's subnet and security group)");
    }
    if (!spec.image) throw new VmInputError("an aws instance needs an image (an OS name such as debian12)");
    if (spec.firewall) assertFirewallRules(spec.firewall);
    const progress = opts.onProgress ?? (() => undefined);
    const image = await resolveAwsImage(this.ec2, spec.image, this.s.images ?? AWS_IMAGES, this.where).catch((e: unknown) => {
      if ((e as Error).name === "ImageNotFoundError") throw e;
      throw cloudError(`${this.where}: DescribeImages`, e);
    });
    const size = pickSize(await this.instanceTypes(), spec, this.where);
    const existing = await this.byName(spec.name);
    if (existing) return this.adopt(spec, existing, size, opts);
    progress(`${spec.name}: ${spec.image} is ${image.ImageId} (${image.Name ?? "?"}), size ${size.name} (${size.cpus} vCPU, ${size.memory_mb} MiB)`);
    const key = spec.sshKeys[0] ? await this.call("key pair", ensureKeyPair(this.ec2, spec.sshKeys[0])) : undefined;
    const tags: Tag[] = [
      { Key: "Name", Value: spec.name },
      { Key: "managed-by", Value: "svc" },
      { Key: "svc-image", Value: spec.image },
      ...(opts.owner
        ? [
            { Key: "svc-dag-id", Value: opts.owner.dagId },
            { Key: "svc-run-id", Value: opts.owner.runId },
            { Key: "svc-task-id", Value: opts.owner.taskId },
          ]
        : []),
    ];
    const userData = cloudInitUserData({ hostname: spec.name, user: this.s.sshUser ?? "svc", sshKeys: spec.sshKeys });
    const root = image.RootDeviceName;
    // The VM's own security group, in place of the host's: its rules are all that reaches it.
    const group = spec.firewall ? await this.call("CreateSecurityGroup", createVmGroup(this.ec2, spec.name, spec.firewall, tags, this.s.subnet)) : this.s.securityGroup;
    const run = await this.call(
      "RunInstances",
      this.ec2.send(
        new RunInstancesCommand({
          ImageId: image.ImageId,
          InstanceType: size.name as never,
          MinCount: 1,
          MaxCount: 1,
          // The try's task as EC2's idempotency token: a second try of the same task (at-least-once
          // delivery) gets the instance the first one launched, never a second one.
          ...(opts.owner
            ? {
                ClientToken: createHash("sha256")
                  .update(JSON.stringify([opts.owner.dagId, opts.owner.runId, opts.owner.taskId, spec.name]))
                  .digest("hex"),
              }
            : {}),
          ...(key ? { KeyName: key.name } : {}),
          UserData: Buffer.from(userData).toString("base64"),
          MetadataOptions: { HttpTokens: "required", HttpEndpoint: "enabled" },
          TagSpecifications: [
            { ResourceType: "instance", Tags: tags },
            { ResourceType: "volume", Tags: tags },
          ],
          ...(!this.s.subnet && spec.firewall ? { SecurityGroupIds: [group!] } : {}),
          ...(this.s.subnet || (this.s.securityGroup && !spec.firewall)
            ? {
                NetworkInterfaces: [
                  {
                    DeviceIndex: 0,
                    AssociatePublicIpAddress: true,
                    ...(this.s.subnet ? { SubnetId: this.s.subnet } : {}),
                    ...(group ? { Groups: [group] } : {}),
                  },
                ],
              }
            : {}),
          ...(this.s.zone ? { Placement: { AvailabilityZone: this.s.zone } } : {}),
          ...(root && spec.disksGb[0] ? { BlockDeviceMappings: [{ DeviceName: root, Ebs: { VolumeSize: spec.disksGb[0], DeleteOnTermination: true } }] } : {}),
        }),
      ),
    ).catch(async (e: unknown) => {
      if (spec.firewall) await removeVmGroup(this.ec2, spec.name).catch(() => undefined);
      throw e;
    });
    const id = run.Instances?.[0]?.InstanceId;
    if (!id) throw cloudError(`${this.where}: RunInstances`, new Error("no instance in the answer"));
    progress(`${spec.name}: instance ${id} launched`);
    try {
      const i = await this.waitFor(id, (x) => x.State?.Name === "running", "running", opts);
      return { info: await this.toInfo(i), created: true };
    } catch (e) {
      progress(`${spec.name}: terminating ${id}: ${(e as Error).message}`);
      await this.terminate(id, {}).catch(() => undefined);
      if (spec.firewall) await removeVmGroup(this.ec2, spec.name).catch(() => undefined);
      throw e;
    }
  }

  private async adopt(spec: VmSpec, i: Instance, size: CloudSize, opts: CreateOptions): Promise<CreateResult> {
    const tags = tagsOf(i);
    if (tags["managed-by"] !== "svc") throw new VmForeignError(spec.name, "create");
    if (opts.owner && tags["svc-run-id"] && tags["svc-run-id"] !== opts.owner.runId && !(opts.adoptSameDag && tags["svc-dag-id"] === opts.owner.dagId)) {
      throw new VmExistsError(spec.name, `made by run ${tags["svc-run-id"]} of ${tags["svc-dag-id"] ?? "?"}`, "owner");
    }
    const diff = [
      ...(tags["svc-image"] !== spec.image ? [`image ${tags["svc-image"]} != ${spec.image}`] : []),
      ...(i.InstanceType !== size.name ? [`size ${i.InstanceType} != ${size.name}`] : []),
    ];
    if (diff.length) throw new VmExistsError(spec.name, diff.join(", "));
    return { info: await this.toInfo(i), created: false, ...(opts.owner && tags["svc-run-id"] !== opts.owner.runId ? { adopted: true } : {}) };
  }

  private async waitFor(id: string, done: (i: Instance) => boolean, what: string, o: { waitTimeoutMs?: number; signal?: AbortSignal }): Promise<Instance> {
    return waitUntil(
      async () => {
        const [i] = await this.instances([{ Name: "instance-id", Values: [id] }]);
        return i && done(i) ? i : undefined;
      },
      {
        what: `${this.where}: instance ${id} ${what}`,
        timeoutMs: o.waitTimeoutMs ?? this.s.timeoutMs ?? 600_000,
        pollMs: this.s.pollMs ?? 5000,
        ...(o.signal ? { signal: o.signal } : {}),
      },
    );
  }

  private async terminate(id: string, o: { waitTimeoutMs?: number }): Promise<void> {
    await this.call("TerminateInstances", this.ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })));
    await this.waitFor(id, (x) => x.State?.Name === "terminated", "terminated", o);
  }

  /** The host keys cloud-init printed to the instance's console (GetConsoleOutput), polled up to `waitMs`. */
  async consoleHostKeys(name: string, o: { waitMs: number; pollMs?: number; signal?: AbortSignal }): Promise<ConsoleHostKeys> {
    assertVmName(name);
    const i = await this.byName(name);
    if (!i?.InstanceId) return { keys: [], fingerprints: [], source: `no instance '${name}' in ${this.where}` };
    return awsConsoleHostKeys(this.ec2, i.InstanceId, this.call.bind(this), { pollMs: this.s.pollMs, ...o });
  }

  async delete(name: string, opts: DeleteOptions & { waitTimeoutMs?: number } = {}): Promise<DeleteResult> {
    assertVmName(name);
    const i = await this.byName(name);
    if (!i?.InstanceId) return { name, deleted: false, note: `VM '${name}' does not exist in ${this.where}` };
    if (tagsOf(i)["managed-by"] !== "svc" && !opts.forceForeign) {
      throw new VmForeignError(name, "delete");
    }
    await this.terminate(i.InstanceId, opts);
    await this.call("DeleteSecurityGroup", removeVmGroup(this.ec2, name));
    return { name, deleted: true };
  }
}
