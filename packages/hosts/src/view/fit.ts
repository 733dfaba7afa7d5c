import type { Weigher } from "../place";
import type { HostRecord } from "../types";
import { DEFAULT_MAX_PROBE_AGE_MS, placementOver, placementRequestOf } from "./placement-over";

/** The size a question asks about ("would a 32 GB, 8 vCPU vm fit anywhere?"), in the catalogue's units. */
export interface FitQuestion {
  memory_mb?: number;
  cpus?: number;
  disk_gb?: number;
}

/** Where a VM of that size would go now: placement's verdict per host, and one answer for people. */
export interface FitAnswer {
  /** The host placement would choose, or null when none fits. */
  host: string | null;
  weigher: Weigher;
  verdicts: { host: string; fits: boolean; reasons: string[] }[];
  answer: string;
}

/**
 * "Would a VM of this size fit, and where?", answered by placement itself over the hosts' last
 * probes (free after each host's reserve, stale or failed probes counted as down), as the worker
 * would place it now. What the question does not state takes vm_create's defaults, and the answer
 * says so.
 */
export function describeFit(records: readonly HostRecord[], size: FitQuestion, opts: { weigher?: Weigher; maxProbeAgeMs?: number; now?: number } = {}): FitAnswer {
  const weigher = opts.weigher ?? "spread";
  const request = placementRequestOf({ ...size });
  const p = placementOver(records, request, weigher, opts.maxProbeAgeMs ?? DEFAULT_MAX_PROBE_AGE_MS, opts.now);
  const disk = request.disksGb.reduce((s, g) => s + g, 0);
  const stated = [
    size.memory_mb !== undefined ? `${request.memoryMb} MiB of memory` : `memory not stated (counted as ${request.memoryMb} MiB)`,
    size.cpus !== undefined ? `${request.cpus} vCPU(s)` : `vCPUs not stated (counted as ${request.cpus})`,
    size.disk_gb !== undefined ? `${disk} GB of disk` : "disk not stated (not counted)",
  ].join(", ");
  const lines = p.verdicts.map((v) => {
    const n = v.numbers ? ` (memory ${v.numbers.memory_free_mb} MiB, vCPUs ${v.numbers.vcpus_free}, disk ${v.numbers.disk_free_gb} GB free)` : "";
    return `- ${v.host}: ${v.fits ? "fits" : `does not fit: ${v.reasons.join("; ")}`}${n}`;
  });
  const head =
    records.length === 0
      ? "The host inventory is empty: no hypervisor host is recorded (svc-hosts add)."
      : `A VM with ${stated}, by the hosts' last probes (free is after each host's reserve):`;
  const tail = p.host ? `Placement (${weigher}) would put it on ${p.host} now.` : "No host fits it now: a VM of that size would fail at placement before anything is created.";
  return {
    host: p.host,
    weigher,
    verdicts: p.verdicts.map((v) => ({ host: v.host, fits: v.fits, reasons: v.reasons })),
    answer: records.length === 0 ? head : [head, ...lines, tail].join("\n"),
  };
}
