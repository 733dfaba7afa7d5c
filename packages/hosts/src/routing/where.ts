import type { PlacementHost } from "../place";
import { hostRegion } from "../providers";
import type { HostCapacity, HostRecord } from "../types";
import type { Creation } from "./creations";

/** A host that holds (or is about to hold) a VM, and the evidence. */
export interface Holder {
  host: string;
  why: string;
}

/**
 * The hosts holding VM `name`: those whose last probe lists it, those a vm_create of that name is
 * in flight on, and those one created it on after their last probe (which could not see it yet).
 */
export function holdersOf(name: string, records: readonly HostRecord[], creations: readonly Creation[]): Holder[] {
  const out: Holder[] = [];
  for (const r of records) {
    if (r.last_probe?.vms.some((v) => v.name === name)) out.push({ host: r.name, why: `in its probe of ${r.last_probe.probed_at}` });
  }
  for (const c of creations) {
    if (c.name !== name || out.some((h) => h.host === c.host)) continue;
    if (c.inFlight) {
      out.push({ host: c.host, why: `being created there by ${c.task}` });
      continue;
    }
    const probe = records.find((r) => r.name === c.host)?.last_probe;
    if (!probe || (c.endedAt && c.endedAt.getTime() > Date.parse(probe.probed_at))) out.push({ host: c.host, why: `created there by ${c.task} after its last probe` });
  }
  return out;
}

/**
 * What creations not in a host's probe add to it, summed: those in flight, and those that ended
 * after the probe was taken (their VM exists, the next probe will list it).
 */
export interface UnseenLoad {
  count: number;
  memoryMb: number;
  cpus: number;
  diskGb: number;
}

export function unseenLoad(host: string, probe: HostCapacity | null, creations: readonly Creation[]): UnseenLoad {
  const seen = new Set((probe?.vms ?? []).map((v) => v.name));
  const since = probe ? Date.parse(probe.probed_at) : -Infinity;
  const unseen = (c: Creation) => c.inFlight || (c.endedAt !== null && c.endedAt.getTime() > since);
  const mine = creations.filter((c) => c.host === host && unseen(c) && !(c.name !== null && seen.has(c.name)));
  return {
    count: mine.length,
    memoryMb: mine.reduce((s, c) => s + c.memoryMb, 0),
    cpus: mine.reduce((s, c) => s + c.cpus, 0),
    diskGb: mine.reduce((s, c) => s + c.disksGb.reduce((a, b) => a + b, 0), 0),
  };
}

/** A probe with in-flight creations counted as running VMs (memory committed, vCPUs used, disk taken). */
export function withLoad(c: HostCapacity, l: UnseenLoad): HostCapacity {
  if (l.count === 0) return c;
  return {
    ...c,
    memory_free_mb: c.memory_free_mb - l.memoryMb,
    memory_committed_mb: c.memory_committed_mb + l.memoryMb,
    vcpus_used: c.vcpus_used + l.cpus,
    disk_free_gb: c.disk_free_gb - l.diskGb,
  };
}

/** Up (a probe without error within `maxAgeMs`) or down with the reason. */
export function freshness(r: HostRecord, maxAgeMs: number, now = Date.now()): { up: true } | { up: false; reason: string } {
  if (!r.last_probe || !r.probed_at) return { up: false, reason: r.probe_error ?? "not probed yet" };
  if (r.probe_error) return { up: false, reason: r.probe_error };
  const age = now - Date.parse(r.probed_at);
  if (age > maxAgeMs) return { up: false, reason: `not probed for ${Math.round(age / 1000)} s` };
  return { up: true };
}

/** The placement policy of a host record (state, reserves, CPU ratio, provider, region, labels): what place() weighs besides the probe. */
export function placementPolicy(r: HostRecord) {
  const region = hostRegion(r);
  return {
    name: r.name,
    state: r.state,
    reserve_memory_mb: r.reserve_memory_mb,
    reserve_disk_gb: r.reserve_disk_gb,
    reserve_vcpus: r.reserve_vcpus,
    cpu_ratio: r.cpu_ratio,
    provider: r.provider,
    labels: r.labels,
    ...(region ? { region } : {}),
  };
}

/**
 * Whether a host counts as up: a libvirt host by a fresh probe without error; a cloud host unless
 * its last identity call failed (bad credentials are never up), with that error as the reason.
 */
export function hostUp(r: HostRecord, maxAgeMs: number, now = Date.now()): { up: true } | { up: false; reason: string } {
  if (r.provider === "libvirt") return freshness(r, maxAgeMs, now);
  return r.probe_error ? { up: false, reason: r.probe_error } : { up: true };
}

/**
 * A cloud host as placement sees it: no capacity (the provider's), down when its last identity
 * call failed (bad credentials are never up). Undefined for a libvirt host (its probe decides).
 */
export function cloudPlacementHost(r: HostRecord): PlacementHost | undefined {
  if (r.provider === "libvirt") return undefined;
  return { ...placementPolicy(r), capacity: null, ...(r.probe_error ? { down_reason: r.probe_error } : {}) };
}
