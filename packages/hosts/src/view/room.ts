import { LOCAL_HOST } from "../names";
import { hostNumbers } from "../place";
import { hostRegion } from "../providers";
import { hostUp, placementPolicy } from "../routing/where";
import type { HostRecord } from "../types";
import { DEFAULT_MAX_PROBE_AGE_MS } from "./placement-over";

/** How much room one host has, from its last probe (numbers null when it was never probed). */
export interface HostRoom {
  host: string;
  state: string;
  /** A probe without error within the age placement accepts. */
  up: boolean;
  /** Why it counts as down (failed probe, stale probe, never probed); null when up. */
  down_reason: string | null;
  /** When its numbers were measured (the last good probe), and how long ago in seconds. */
  measured_at: string | null;
  age_s: number | null;
  memory_free_mb: number | null;
  memory_total_mb: number | null;
  vcpus_free: number | null;
  /** vCPUs x cpu_ratio: what placement may hand out. */
  vcpus_total: number | null;
  disk_free_gb: number | null;
  disk_total_gb: number | null;
  vm_count: number | null;
  /** A cloud host's provider and region (absent for libvirt): no capacity, up unless its identity call failed. */
  cloud?: { provider: string; region: string | null };
}

/** One host's room: free is after its reserve (as placement counts it); a failed or stale probe says so. */
export function hostRoom(r: HostRecord, maxAgeMs = DEFAULT_MAX_PROBE_AGE_MS, now = Date.now()): HostRoom {
  const f = hostUp(r, maxAgeMs, now);
  const base = {
    host: r.name,
    state: r.state,
    up: f.up,
    down_reason: f.up ? null : f.reason,
    ...(r.provider !== "libvirt" ? { cloud: { provider: r.provider, region: hostRegion(r) ?? null } } : {}),
  };
  const c = r.provider === "libvirt" ? r.last_probe : null;
  if (!c)
    return {
      ...base,
      measured_at: null,
      age_s: null,
      memory_free_mb: null,
      memory_total_mb: null,
      vcpus_free: null,
      vcpus_total: null,
      disk_free_gb: null,
      disk_total_gb: null,
      vm_count: null,
    };
  const n = hostNumbers({ ...placementPolicy(r), capacity: c }, c);
  return {
    ...base,
    measured_at: c.probed_at,
    age_s: Math.max(0, Math.round((now - Date.parse(c.probed_at)) / 1000)),
    memory_free_mb: n.memory_free_mb,
    memory_total_mb: c.memory_total_mb,
    vcpus_free: n.vcpus_free,
    vcpus_total: Math.floor(c.vcpus_total * r.cpu_ratio),
    disk_free_gb: n.disk_free_gb,
    disk_total_gb: c.disk_total_gb,
    vm_count: c.vm_count,
  };
}

function roomLine(h: HostRoom): string {
  if (h.cloud) {
    const where = `a ${h.cloud.provider} host${h.cloud.region ? ` in ${h.cloud.region}` : ""}`;
    return `${h.host} (${h.state}): ${where}, ${h.up ? "up" : `DOWN: ${h.down_reason}`}; a cloud account, no host capacity: a VM there bills it, and placement takes it only when a request names it`;
  }
  const status = h.up ? `up (probed ${h.age_s} s ago)` : `DOWN: ${h.down_reason}`;
  if (h.memory_total_mb === null) return `${h.host} (${h.state}): ${status}; no numbers (never probed successfully)`;
  const numbers =
    `memory ${h.memory_free_mb} of ${h.memory_total_mb} MiB free, vCPUs ${h.vcpus_free} of ${h.vcpus_total} free, ` +
    `disk ${h.disk_free_gb} of ${h.disk_total_gb} GB free, ${h.vm_count} VM(s)`;
  return h.up
    ? `${h.host} (${h.state}): ${status}; ${numbers}`
    : `${h.host} (${h.state}): ${status}; its last good probe (${h.age_s} s old, not counted by placement) said ${numbers}`;
}

/**
 * The answer to "how much room is left on each host?": one line per host (free after the reserve),
 * then which usable host has the most free memory. Never a number the inventory does not hold.
 */
export function describeRoom(rooms: readonly HostRoom[]): string {
  if (rooms.length === 0) return "The host inventory is empty: no hypervisor host is recorded (svc-hosts add).";
  if (rooms.every((h) => h.host === LOCAL_HOST && h.memory_total_mb === null)) {
    return "Only the local host is in the inventory and it has no probe yet: the worker records one within seconds of starting (svc-hosts info local --probe).";
  }
  const usable = rooms.filter((h) => h.up && h.state === "active" && h.memory_free_mb !== null);
  const best = usable.reduce<HostRoom | undefined>((a, b) => (!a || b.memory_free_mb! > a.memory_free_mb! ? b : a), undefined);
  const lines = rooms.map((h) => `- ${roomLine(h)}`);
  const tail = best ? `Most free memory: ${best.host} (${best.memory_free_mb} MiB).` : "No host is up and active: placement would find no host for a new VM.";
  return [`Room on the ${rooms.length} host(s), from their last probes (free is after each host's reserve):`, ...lines, tail].join("\n");
}
