import { place, type Placement, type PlacementHost, type PlacementRequest, type Weigher } from "../place";
import { cloudPlacementHost, freshness, placementPolicy } from "../routing/where";
import type { HostRecord } from "../types";

/** A probe older than this counts as down, as the worker's router counts it (3 probe intervals of 10 s). */
export const DEFAULT_MAX_PROBE_AGE_MS = 30_000;

/**
 * What placement is asked for a VM whose params (or rendered vm_create args) are `conf`: image,
 * memory, vCPUs, disks (`disks_gb` list, or one `disk_gb`, or none), the pinned `host`, and the
 * target asked for (`provider`, `region`, `host_labels`: a cloud host only when one names it). Values
 * that are not numbers take vm_create's defaults. The worker's router and the previews share it.
 */
export function placementRequestOf(conf: Record<string, unknown>): PlacementRequest {
  const n = (v: unknown, def: number) => (typeof v === "number" && Number.isFinite(v) ? v : def);
  const host = typeof conf.host === "string" && conf.host !== "" ? conf.host : undefined;
  const str = (k: string) => (typeof conf[k] === "string" && conf[k] !== "" ? { [k]: conf[k] } : {});
  const labels = isLabels(conf.host_labels) && Object.keys(conf.host_labels).length ? { labels: conf.host_labels } : {};
  const disks = Array.isArray(conf.disks_gb) ? conf.disks_gb.map((d) => n(d, 0)) : conf.disk_gb !== undefined ? [n(conf.disk_gb, 0)] : [];
  return {
    ...(typeof conf.image === "string" && conf.image !== "" ? { image: conf.image } : {}),
    memoryMb: n(conf.memory_mb, 512),
    cpus: n(conf.cpus, 1),
    disksGb: disks,
    ...(host ? { host } : {}),
    ...str("provider"),
    ...str("region"),
    ...str("size"),
    ...labels,
  };
}

const isLabels = (v: unknown): v is Record<string, string> => typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");

/** Placement of a VM over the hosts' last probes, as the worker would place it (stale or failed probes: down). */
export function placementOver(records: readonly HostRecord[], request: PlacementRequest, weigher: Weigher, maxAgeMs: number, now = Date.now()): Placement {
  const hosts: PlacementHost[] = records.map((r) => {
    const cloud = cloudPlacementHost(r);
    if (cloud) return cloud;
    const policy = placementPolicy(r);
    const f = freshness(r, maxAgeMs, now);
    return f.up ? { ...policy, capacity: r.last_probe } : { ...policy, capacity: null, down_reason: f.reason };
  });
  return place(request, hosts, weigher);
}
