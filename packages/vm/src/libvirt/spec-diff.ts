import { assertForwards, forwardText } from "../forwards";
import type { VmSpec } from "../types";
import type { SvcVmMeta } from "./domain-xml";

/** What the metadata records of a create request, beside the image, ports and forwards. */
export function recordedSpec(spec: VmSpec): Pick<SvcVmMeta, "memory_mb" | "cpus" | "disks_gb" | "nets"> & { iso: string | null; macs: string[] } {
  return { iso: spec.iso ?? null, memory_mb: spec.memoryMb, cpus: spec.cpus, disks_gb: spec.disksGb, nets: spec.nets, macs: spec.macs ?? [] };
}

/**
 * How an existing VM's recorded spec differs from a create request: "" when it is the same VM
 * (create is then an idempotent success), else one `key: has X, asked Y` per difference.
 * Metadata written before ISOs, MACs, forwards and outbound existed reads as "no ISO, no pinned MACs, no forwards, restricted".
 */
export function specDiff(spec: VmSpec, meta: SvcVmMeta | null): string {
  if (!meta) return "not created by svc-vm";
  const want = {
    image: spec.image ?? null,
    ...recordedSpec(spec),
    forwards: assertForwards(spec.forwards ?? [], spec.nets).map(forwardText),
    user_net_outbound: spec.userNetOutbound ?? false,
  };
  const have: typeof want = {
    image: meta.image,
    iso: meta.iso ?? null,
    memory_mb: meta.memory_mb,
    cpus: meta.cpus,
    disks_gb: meta.disks_gb,
    nets: meta.nets,
    macs: meta.macs ?? [],
    forwards: (meta.forwards ?? []).map((f) => forwardText({ proto: f.proto, guestPort: f.guest_port })),
    user_net_outbound: meta.user_net_outbound ?? false,
  };
  return (Object.keys(want) as (keyof typeof want)[])
    .filter((k) => JSON.stringify(want[k]) !== JSON.stringify(have[k]))
    .map((k) => `${k}: has ${JSON.stringify(have[k])}, asked ${JSON.stringify(want[k])}`)
    .join("; ");
}
