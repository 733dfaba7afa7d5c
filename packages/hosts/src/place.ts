// Placement of a new VM, as Nova's filter scheduler does it: filter the hosts that can take it, then
// weigh the rest. Pure: the caller brings each host's record and its last probe.
import { PLACEMENT_WEIGHERS } from "@svc/config";
import type { HostProvider, HostState } from "@svc/db";
import { isCloud, targetReasons } from "./place-target";
import type { HostCapacity } from "./types";

export const WEIGHERS = PLACEMENT_WEIGHERS;
/** spread (default): the emptiest host first; pack: the fullest host that still fits. */
export type Weigher = (typeof WEIGHERS)[number];

/** What the VM asks for. */
export interface PlacementRequest {
  /** Base image; absent for an ISO boot (then no image filter). */
  image?: string;
  memoryMb: number;
  cpus: number;
  /** Disk sizes in GB; their sum is what the host must have free. */
  disksGb: number[];
  /** Pin the VM to this host (the task's `host` param). */
  host?: string;
  /** The provider asked for: only its hosts qualify (a cloud host qualifies only when asked for). */
  provider?: string;
  /** The region or location asked for: only hosts there qualify. */
  region?: string;
  /** Labels a host must carry (a cloud host carrying them counts as asked for). */
  labels?: Record<string, string>;
  /** A cloud size by the provider's name (vm_create's `size`): the cloud plan shows that size, not the smallest fitting. */
  size?: string;
}

/** A host as placement sees it: its record's policy fields and its probe (null: down). */
export interface PlacementHost {
  name: string;
  state: HostState;
  reserve_memory_mb: number;
  reserve_disk_gb: number;
  reserve_vcpus: number;
  cpu_ratio: number;
  capacity: HostCapacity | null;
  /** Why the host is down (the probe's error). */
  down_reason?: string;
  /** `libvirt` when absent. A cloud host has no capacity to weigh: it is up unless `down_reason` says otherwise. */
  provider?: HostProvider;
  /** A cloud host's region or location. */
  region?: string;
  labels?: Record<string, string>;
}

/** The numbers a host was judged on (after its reserve). */
export interface HostNumbers {
  memory_free_mb: number;
  disk_free_gb: number;
  vcpus_free: number;
}

/** One host's verdict. */
export interface HostVerdict {
  host: string;
  fits: boolean;
  /** Why it does not fit (empty when it fits). */
  reasons: string[];
  numbers: HostNumbers | null;
  /** The weigher's score (higher wins), for hosts that fit. */
  weight?: number;
}

export interface Placement {
  /** The chosen host, or null when none fits (`verdicts` says why, per host). */
  host: string | null;
  weigher: Weigher;
  request: PlacementRequest;
  verdicts: HostVerdict[];
}

/** Memory the running VMs leave after the reserve (what placement weighs). */
const memoryLeftMb = (h: PlacementHost, c: HostCapacity) => c.memory_total_mb - c.memory_committed_mb - h.reserve_memory_mb;

/** Free resources after the reserve; memory is the lesser of what the kernel has and what running VMs leave. */
export function hostNumbers(h: PlacementHost, c: HostCapacity): HostNumbers {
  return {
    memory_free_mb: Math.min(c.memory_free_mb - h.reserve_memory_mb, memoryLeftMb(h, c)),
    disk_free_gb: c.disk_free_gb - h.reserve_disk_gb,
    vcpus_free: Math.floor(c.vcpus_total * h.cpu_ratio) - c.vcpus_used - h.reserve_vcpus,
  };
}

function judge(h: PlacementHost, r: PlacementRequest): HostVerdict {
  const reasons: string[] = targetReasons(h, r);
  if (h.state === "draining") reasons.push("draining");
  if (isCloud(h)) {
    // The provider's quota is not known here: an asked-for cloud host that is up takes the VM.
    if (h.down_reason) reasons.push(`down: ${h.down_reason}`);
    return { host: h.name, fits: reasons.length === 0, reasons, numbers: null };
  }
  if (!h.capacity) {
    reasons.push(`down: ${h.down_reason ?? "not probed"}`);
    return { host: h.name, fits: false, reasons, numbers: null };
  }
  const n = hostNumbers(h, h.capacity);
  const disk = r.disksGb.reduce((s, g) => s + g, 0);
  if (r.image !== undefined && !h.capacity.images.includes(r.image)) reasons.push(`no image '${r.image}'`);
  if (n.memory_free_mb < r.memoryMb) reasons.push(`memory: ${r.memoryMb} MiB asked, ${n.memory_free_mb} MiB free after a ${h.reserve_memory_mb} MiB reserve`);
  if (n.disk_free_gb < disk) reasons.push(`disk: ${disk} GB asked, ${n.disk_free_gb} GB free after a ${h.reserve_disk_gb} GB reserve`);
  if (n.vcpus_free < r.cpus)
    reasons.push(`vcpus: ${r.cpus} asked, ${n.vcpus_free} free (${h.capacity.vcpus_total} x ${h.cpu_ratio} - ${h.capacity.vcpus_used} used - ${h.reserve_vcpus} reserved)`);
  return { host: h.name, fits: reasons.length === 0, reasons, numbers: n };
}

/**
 * Min-max normalisation over the candidates (Nova's), 0 when they are all equal. The span is at
 * least 5% of the largest value: a difference smaller than that (a probe's noise between two hosts
 * alike) weighs in proportion instead of deciding alone.
 */
function normalise(xs: number[]): number[] {
  const lo = Math.min(...xs);
  const span = Math.max(Math.max(...xs) - lo, 0.05 * Math.max(...xs.map(Math.abs)));
  return xs.map((x) => (span === 0 ? 0 : (x - lo) / span));
}

/**
 * Choose a host: the pinned one when it fits, else the best-weighed of those that do. Weights are
 * the normalised memory, disk and vCPUs left after the VM, summed (spread) or negated (pack); ties
 * go to the first name. Memory is weighed as the VMs leave it (total - committed - reserve, as
 * Nova's RAM weigher does): the kernel's free memory still filters, but it moves with every page
 * cache and would make two alike hosts' order a matter of when each was probed.
 * No host fits: `host` is null and every verdict carries its reasons.
 */
export function place(request: PlacementRequest, hosts: readonly PlacementHost[], weigher: Weigher = "spread"): Placement {
  const sorted = [...hosts].sort((a, b) => a.name.localeCompare(b.name));
  const verdicts = sorted.map((h) => judge(h, request));
  if (request.host !== undefined) {
    const pinned = verdicts.find((v) => v.host === request.host);
    if (!pinned) return { host: null, weigher, request, verdicts: [...verdicts, { host: request.host, fits: false, reasons: ["not in the inventory"], numbers: null }] };
    for (const v of verdicts.filter((x) => x !== pinned && x.fits)) {
      v.fits = false;
      v.reasons.push(`not the pinned host '${request.host}'`);
    }
    return { host: pinned.fits ? pinned.host : null, weigher, request, verdicts };
  }
  // Hosts with capacity are weighed; a cloud host asked for is taken (first by name) only when none of them fits.
  const fitHosts = sorted.filter((h, i) => verdicts[i]!.fits && !isCloud(h));
  const fit = verdicts.filter((v, i) => v.fits && !isCloud(sorted[i]!));
  const cloud = verdicts.find((v, i) => v.fits && isCloud(sorted[i]!));
  if (fit.length === 0) return { host: cloud?.host ?? null, weigher, request, verdicts };
  const disk = request.disksGb.reduce((s, g) => s + g, 0);
  const cols = [
    normalise(fitHosts.map((h) => memoryLeftMb(h, h.capacity!) - request.memoryMb)),
    normalise(fit.map((v) => v.numbers!.disk_free_gb - disk)),
    normalise(fit.map((v) => v.numbers!.vcpus_free - request.cpus)),
  ];
  const sign = weigher === "pack" ? -1 : 1;
  fit.forEach((v, i) => (v.weight = sign * cols.reduce((s, c) => s + c[i]!, 0)));
  const best = fit.reduce((a, b) => (b.weight! > a.weight! ? b : a));
  return { host: best.host, weigher, request, verdicts };
}

/** One line per host for a task's log and the plan: the choice and the numbers it was made on. */
export function describePlacement(p: Placement): string[] {
  const head = p.host ? `placed on '${p.host}' (${p.weigher})` : `no host fits (${p.weigher})`;
  const lines = p.verdicts.map((v) => {
    const n = v.numbers ? `memory ${v.numbers.memory_free_mb} MiB, disk ${v.numbers.disk_free_gb} GB, vcpus ${v.numbers.vcpus_free} free` : "no numbers";
    const w = v.weight !== undefined ? `, weight ${v.weight.toFixed(3)}` : "";
    return `  ${v.host}: ${v.fits ? "fits" : v.reasons.join("; ")} (${n}${w})`;
  });
  return [head, ...lines];
}
