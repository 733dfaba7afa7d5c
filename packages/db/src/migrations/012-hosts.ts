import { sql, type Kysely } from "kysely";

/**
 * The inventory of hypervisor hosts (`svc-hosts`, admin over REST). A host is reached over SSH with
 * its own key and a pinned host key (`host_key`: `type base64` lines, as in known_hosts without
 * the host field); its libvirt URI and images/disks directories are the ones svc-vm uses there.
 * `local` is the host the stack runs on, made from the SVC_SSH_* and SVC_VM_* settings.
 * The VMs svc made are recorded in each domain's libvirt metadata on the host, not here: a probe
 * counts them, and `last_probe` keeps what the last probe saw (capacity, VM count) for listings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table hypervisor_host (
    name text primary key check (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
    ssh_user text not null check (ssh_user ~ '^[A-Za-z_][A-Za-z0-9_.-]{0,31}$'),
    address text not null check (length(address) between 1 and 253),
    port int not null default 22 check (port between 1 and 65535),
    key_path text not null check (key_path like '/%'),
    host_key text,
    libvirt_uri text not null default 'qemu:///system',
    images_dir text not null default '/var/lib/svc/images' check (images_dir like '/%'),
    disks_dir text not null default '/var/lib/svc/vms' check (disks_dir like '/%'),
    labels jsonb not null default '{}' check (jsonb_typeof(labels) = 'object'),
    state text not null default 'active' check (state in ('active', 'draining')),
    reserve_memory_mb int not null default 512 check (reserve_memory_mb >= 0),
    reserve_disk_gb int not null default 5 check (reserve_disk_gb >= 0),
    reserve_vcpus int not null default 0 check (reserve_vcpus >= 0),
    cpu_ratio real not null default 4 check (cpu_ratio > 0),
    last_probe jsonb,
    probed_at timestamptz,
    probe_error text,
    created_by text not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    unique (address, port)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table hypervisor_host`.execute(db);
}
