import type { HostProvider } from "@svc/db";
import { LOCAL_HOST } from "../names";
import { hostRegion } from "../providers";
import type { HostVerdict, PlacementRequest, Weigher } from "../place";
import type { HostRecord } from "../types";
import { placementOver } from "./placement-over";

/** A VM a plan would create: its vm_create task, its name when known, and what it asks. */
export interface PlannedVm {
  task_id: string;
  vm_name: string | null;
  request: PlacementRequest;
}

/** Where one planned VM would go now, by the hosts' last probes. */
export interface VmPlacementPreview {
  task_id: string;
  vm_name: string | null;
  memory_mb: number;
  cpus: number;
  disks_gb: number[];
  image: string | null;
  /** The cloud size the request names (absent: the smallest size with cpus and memory_mb). */
  size?: string;
  /** The host a `host` param pins, or null when placement chooses. */
  pinned: string | null;
  /** The host the run would use now (the holder of the name, the pinned one, or placement's choice), or null. */
  host: string | null;
  /** That host's provider (a cloud host's VM bills its account) and region or location; null without a host. */
  provider: HostProvider | null;
  region: string | null;
  verdicts: HostVerdict[];
  summary: string;
  /** The run would fail before creating anything (no host fits, or the pinned one is unknown or draining). */
  blocked: boolean;
}

/** The plan's placement preview: per VM, and one sentence for people. */
export interface PlacementPreview {
  weigher: Weigher;
  /** When the inventory was read; the verdicts are as of then and the run places again. */
  computed_at: string;
  vms: VmPlacementPreview[];
  summary: string;
  /** True when some VM cannot go anywhere: the run would fail at vm_create before creating anything. */
  blocked: boolean;
}

const verdictText = (v: HostVerdict) => {
  const n = v.numbers ? ` (memory ${v.numbers.memory_free_mb} MiB, disk ${v.numbers.disk_free_gb} GB, vCPUs ${v.numbers.vcpus_free} free)` : "";
  return `${v.host}: ${v.fits ? "fits" : v.reasons.join(", ")}${n}`;
};

/**
 * What the run's router will do with this VM, in one sentence, and whether the run fails before
 * creating anything (the router's rules: a VM already on a host stays there, a pin is obeyed
 * unless the host is unknown or draining, otherwise placement, failing when no host fits).
 */
function outcome(
  vm: PlannedVm,
  p: Omit<VmPlacementPreview, "summary" | "blocked" | "provider" | "region">,
  records: readonly HostRecord[],
  weigher: Weigher,
): { summary: string; blocked: boolean; host: string | null } {
  const name = vm.vm_name ? `VM '${vm.vm_name}'` : `the VM of ${vm.task_id}`;
  const why = p.verdicts.map(verdictText).join("; ");
  const fail = `The run would fail at ${vm.task_id} before creating anything.`;
  const holder = vm.vm_name ? records.find((r) => r.last_probe?.vms.some((v) => v.name === vm.vm_name)) : undefined;
  if (holder) return { summary: `${name} already exists on host '${holder.name}' (its last probe): creating it is idempotent there.`, blocked: false, host: holder.name };
  if (p.pinned) {
    const r = records.find((x) => x.name === p.pinned);
    if (!r)
      return {
        summary: `${name} is pinned to host '${p.pinned}', which is not in the inventory (hosts: ${records.map((x) => x.name).join(", ")}). ${fail}`,
        blocked: true,
        host: null,
      };
    if (r.state === "draining") return { summary: `${name} is pinned to host '${p.pinned}', which is draining and takes no new VMs. ${fail}`, blocked: true, host: null };
    const v = p.verdicts.find((x) => x.host === p.pinned);
    if (r.provider !== "libvirt") {
      const down = r.probe_error ? `; its last identity call failed (${r.probe_error}): the create will fail until its credentials work` : "";
      return {
        summary: `${name} goes to the ${r.provider} host '${p.pinned}' (${hostRegion(r) ?? "no region"}), pinned by the host param${down}.`,
        blocked: false,
        host: p.pinned,
      };
    }
    const fits = v?.fits ? "it fits by its last probe" : `by its last probe it does not fit (${v?.reasons.join(", ")}): the VM is created there anyway and may fail`;
    return { summary: `${name} goes to host '${p.pinned}', pinned by the host param; ${fits}.`, blocked: false, host: p.pinned };
  }
  if (p.host) {
    const r = records.find((x) => x.name === p.host);
    if (r && r.provider !== "libvirt")
      return { summary: `${name} would be created on the ${r.provider} host '${p.host}', which the request asks for: ${why}.`, blocked: false, host: p.host };
    return { summary: `${name} would be placed on host '${p.host}' (${weigher}, from the last probes): ${why}.`, blocked: false, host: p.host };
  }
  return { summary: `No host fits ${name} now: ${why}. ${fail}`, blocked: true, host: null };
}

/**
 * The placement preview of a plan's VMs over the inventory's last probes. Null for a single-host
 * install (nothing but `local`) and for plans that create no VM: there is nothing to choose.
 */
export function planPlacement(vms: readonly PlannedVm[], records: readonly HostRecord[], o: { weigher: Weigher; maxProbeAgeMs: number; now?: number }): PlacementPreview | null {
  if (vms.length === 0 || records.every((r) => r.name === LOCAL_HOST)) return null;
  const now = o.now ?? Date.now();
  const out = vms.map((vm): VmPlacementPreview => {
    const p = placementOver(records, vm.request, o.weigher, o.maxProbeAgeMs, now);
    const seen = {
      task_id: vm.task_id,
      vm_name: vm.vm_name,
      memory_mb: vm.request.memoryMb,
      cpus: vm.request.cpus,
      disks_gb: vm.request.disksGb,
      image: vm.request.image ?? null,
      ...(vm.request.size ? { size: vm.request.size } : {}),
      pinned: vm.request.host ?? null,
      host: p.host,
      verdicts: p.verdicts,
    };
    const out = outcome(vm, seen, records, o.weigher);
    const rec = records.find((r) => r.name === out.host);
    return { ...seen, ...out, provider: rec?.provider ?? null, region: rec ? (hostRegion(rec) ?? null) : null };
  });
  return { weigher: o.weigher, computed_at: new Date(now).toISOString(), vms: out, summary: out.map((p) => p.summary).join(" "), blocked: out.some((p) => p.blocked) };
}
