import type { HostProvider, HostState } from "@svc/db";

/** A host of the inventory, as the library, the CLI and the REST API show it (snake_case JSON). */
export interface HostRecord {
  name: string;
  ssh_user: string;
  address: string;
  port: number;
  key_path: string;
  /** Pinned host keys (`type base64` per line), or null when none is pinned yet. */
  host_key: string | null;
  libvirt_uri: string;
  images_dir: string;
  disks_dir: string;
  labels: Record<string, string>;
  state: HostState;
  reserve_memory_mb: number;
  reserve_disk_gb: number;
  reserve_vcpus: number;
  cpu_ratio: number;
  last_probe: HostCapacity | null;
  probed_at: string | null;
  probe_error: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** `libvirt` (reached over SSH), or the cloud whose API makes the VMs. */
  provider: HostProvider;
  /** A cloud host's region/location, endpoint, credentials mode...; `{}` for libvirt. Never credentials. */
  provider_settings: Record<string, string>;
}

/** One libvirt domain on a host, as the probe saw it. */
export interface ProbedVm {
  name: string;
  running: boolean;
  /** Made by svc-vm (its metadata is in the domain). */
  svc: boolean;
  memory_mb: number | null;
  cpus: number | null;
}

/** What a probe of a host measured (all sizes in MiB/GiB as named). */
export interface HostCapacity {
  memory_total_mb: number;
  /** free + buffers + cached (virsh nodememstats). */
  memory_free_mb: number;
  /** Memory of the running domains (what they may use, whatever they touch now). */
  memory_committed_mb: number;
  vcpus_total: number;
  /** vCPUs of the running domains. */
  vcpus_used: number;
  disk_total_gb: number;
  disk_free_gb: number;
  /** The filesystem measured: the disks directory or its nearest existing parent. */
  disk_path: string;
  images: string[];
  vms: ProbedVm[];
  /** VMs svc made on this host (any state). */
  vm_count: number;
  probed_at: string;
}

/** A probe's outcome: up with numbers, or down with the reason. */
export type ProbeResult = { up: true; capacity: HostCapacity } | { up: false; error: string };
