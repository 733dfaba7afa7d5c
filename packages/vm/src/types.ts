/** What a VM should be: the `create vm` request. */
export interface VmSpec {
  name: string;
  /** Base image to boot; optional when `iso` is given (then the disks start empty). */
  image?: string;
  /**
   * Absolute path on the host of a bootable ISO, attached as a CD-ROM. With no image the disks
   * are created empty and the VM boots from disk first, then from the CD-ROM.
   */
  iso?: string;
  memoryMb: number;
  cpus: number;
  /** Sizes in GB; the first is the root disk (grown from the image when larger; empty without an image). */
  disksGb: number[];
  /** `user` = qemu user-mode networking with SSH on a 127.0.0.1 port; other names are libvirt networks. */
  nets: string[];
  /** One MAC address per entry of `nets` (lower-case, unicast); the hypervisor picks them when absent. */
  macs?: string[];
  /** authorized_keys lines injected into the guest (image boots only: nothing is injected into an ISO). */
  sshKeys: string[];
  /** Guest ports forwarded to 127.0.0.1 ports on the host (user-mode networking only; SSH always is). */
  forwards?: PortForwardSpec[];
  /**
   * Let the guest open connections out of its user-mode NIC (qemu `restrict=off`): a router's
   * uplink. Off by default: the guest then reaches nothing, 127.0.0.1 forwards still work.
   */
  userNetOutbound?: boolean;
  /** A cloud size by the provider's name (instance type, server type); else the smallest fitting memoryMb and cpus. Cloud drivers only. */
  size?: string;
  /**
   * The VM's own firewall (cloud drivers): inbound traffic allowed only by these rules, made with the
   * VM, labelled, removed with it. Absent: no firewall object of its own (the host's network decides).
   */
  firewall?: FirewallRule[];
}

/** An inbound allow rule: a port (or range up to toPort) of a protocol, from these CIDRs only. */
export interface FirewallRule {
  proto: "tcp" | "udp";
  port: number;
  toPort?: number;
  from: string[];
}

/** A guest port a client on the host needs: forwarded from a 127.0.0.1 port picked at create. */
export interface PortForwardSpec {
  proto: "tcp" | "udp";
  guestPort: number;
}

/** A forward as `info vm` reports it: the product's port in the guest, reached at host_address:host_port. */
export interface PortForward {
  proto: "tcp" | "udp";
  guest_port: number;
  host_address: string;
  host_port: number;
}

/** What `info vm` returns (snake_case: it is the CLI's and operators' JSON). */
export interface VmInfo {
  name: string;
  /** running | shut off | paused | crashed | ... (libvirt wording; kcli up/down mapped). */
  state: string;
  image: string | null;
  memory_mb: number | null;
  cpus: number | null;
  disks: { path: string; size_gb: number | null }[];
  nets: string[];
  /** The NICs' MAC addresses in `nets` order when known (pinned at create, or read from libvirt). */
  macs: string[];
  /** The ISO attached as a CD-ROM at create, or null. */
  iso: string | null;
  ip: string | null;
  /** Where SSH answers for this VM: the guest IP, or 127.0.0.1 with a forwarded port. */
  ssh_host: string | null;
  ssh_port: number | null;
  ssh_user: string | null;
  /** Every forwarded port of a user-mode VM, SSH's included; empty otherwise. */
  forwards: PortForward[];
  driver: string;
  /** What a cloud driver knows of the instance; absent on libvirt and kcli. */
  cloud?: CloudInstanceInfo;
}

/** A cloud instance as its provider reports it. */
export interface CloudInstanceInfo {
  provider: string;
  region: string;
  zone: string | null;
  instance_id: string;
  size: string;
  /** The provider's image id (the OS name is `image`). */
  image_id: string;
  public_ip: string | null;
  private_ip: string | null;
  /** Tags or labels, `managed-by=svc` and the owner's among them. */
  labels: Record<string, string>;
  launched_at: string | null;
  age_s: number | null;
}

/**
 * What an instance of a size costs per hour, as the provider's API states it (of the four clouds only
 * Hetzner's does): for the plan before approval and for `--orphans`.
 */
export interface HourlyPrice {
  /** What is billed per hour (Hetzner: with VAT). */
  amount: string;
  currency: string;
  /** Before VAT, where the API states it apart (Hetzner). */
  net?: string;
}

/** One image the VM CLI can create from. */
export interface ImageInfo {
  name: string;
  path: string;
  /** kernel = direct kernel boot (test image); disk = boots from its disk (cloud image). */
  boot: "kernel" | "disk";
  description: string | null;
  /** The guest OS from the image's metadata (`debian12`, `centos9stream`, ...); null when unknown. */
  os: string | null;
}

/** The task that creates a VM, recorded in its metadata (a later create adopts it only for the same run). */
export interface VmOwner {
  dagId: string;
  runId: string;
  taskId: string;
}

/** Options of a create call. */
export interface CreateOptions {
  /** Record who creates the VM; an existing VM of another run is then not adopted... */
  owner?: VmOwner;
  /**
   * ...unless this is set and that run was of the same DAG: a product's second create (same
   * params) then finds its server and re-applies its role instead of failing.
   */
  adoptSameDag?: boolean;
  /** Wait until SSH answers on the VM's endpoint. */
  wait?: boolean;
  waitTimeoutMs?: number;
  signal?: AbortSignal;
  /** Progress lines (the CLI prints them on stderr). */
  onProgress?: (line: string) => void;
}

/** Outcome of create: `created` is false when an identical VM already existed. */
export interface CreateResult {
  info: VmInfo;
  created: boolean;
  /** True when the VM was made by another run of the same DAG and adopted (adoptSameDag). */
  adopted?: boolean;
}

/** Outcome of delete: deleting a missing VM is a success with a note. */
export interface DeleteResult {
  name: string;
  deleted: boolean;
  note?: string;
}

/** Options of a delete call. */
export interface DeleteOptions {
  /** Also delete a domain svc did not create (refused by default). */
  forceForeign?: boolean;
}

/** A VM backend: libvirt (virsh, qemu-img) or kcli. */
export interface VmDriver {
  readonly name: "libvirt" | "kcli" | "aws" | "hetzner" | "gcp" | "azure";
  /** The VMs svc made (`all`: every VM the driver sees; cloud drivers only, the others list every domain). */
  list(opts?: { all?: boolean }): Promise<VmInfo[]>;
  /** Throws VmNotFoundError when there is no such VM. */
  info(name: string): Promise<VmInfo>;
  create(spec: VmSpec, opts?: CreateOptions): Promise<CreateResult>;
  delete(name: string, opts?: DeleteOptions): Promise<DeleteResult>;
  listImages(): Promise<ImageInfo[]>;
  /**
   * The host keys the provider's console printed for a VM (cloud-init's blocks), polled until they
   * show or `waitMs` passes; read without contacting the VM. Absent where the provider has no console
   * svc can read (its keys are then trusted on first use).
   */
  consoleHostKeys?(name: string, o: { waitMs: number; pollMs?: number; signal?: AbortSignal }): Promise<ConsoleHostKeys>;
}

/** What a console gave: `type base64` keys and `SHA256:` fingerprints (both empty when it printed none), and where they were read. */
export interface ConsoleHostKeys {
  keys: string[];
  fingerprints: string[];
  /** Where they were read, for the log ("the EC2 console output of i-0abc (40 lines)"). */
  source: string;
}
