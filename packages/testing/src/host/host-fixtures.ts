/** A probed VM as @svc/hosts records it (ProbedVm). */
export interface SampleVm {
  name: string;
  running: boolean;
  svc: boolean;
  memory_mb: number | null;
  cpus: number | null;
}

/**
 * A host probe's capacity for tests, in the shape of @svc/hosts' HostCapacity: 16 GiB (12,000 MiB
 * free, 2,048 committed), 8 vCPUs (2 used), 500 GB (200 free), image `alpha`, no VMs, probed now.
 * Any field can be overridden.
 */
export function sampleCapacity<O extends object = object>(o?: O) {
  return {
    memory_total_mb: 16384,
    memory_free_mb: 12000,
    memory_committed_mb: 2048,
    vcpus_total: 8,
    vcpus_used: 2,
    disk_total_gb: 500,
    disk_free_gb: 200,
    disk_path: "/var/lib/svc/vms",
    images: ["alpha"] as string[],
    vms: [] as SampleVm[],
    vm_count: 0,
    probed_at: new Date().toISOString(),
    ...o,
  };
}

/** A row for @svc/hosts' inventory insert (root over port 22, the default directories), reserves and cpu_ratio overridable. */
export function sampleHostRow<O extends object = object>(name: string, address: string, o?: O) {
  return {
    name,
    address,
    ssh_user: "root",
    port: 22,
    key_path: "/root/.ssh/id_ed25519",
    host_key: null as string | null,
    libvirt_uri: "qemu:///system",
    images_dir: "/var/lib/svc/images",
    disks_dir: "/var/lib/svc/vms",
    labels: {} as Record<string, string>,
    reserve_memory_mb: 512,
    reserve_disk_gb: 5,
    reserve_vcpus: 0,
    cpu_ratio: 4,
    ...o,
  };
}
