import { LOCAL_HOST, type HostRecord } from "@svc/hosts";
import { ToolInputError } from "@svc/mcp";
import type { VmCliInfo, VmTools } from "./vm-access";
import { isMultiHost, probedVms, probeHolders, probeStatus, targetOf, type HostStatus } from "./vm-hosts";

/** A VM with the host holding it and where that was read: the VM CLI now (live) or the host's last probe. */
export type VmOnHost = VmCliInfo & { host: string; source: "live" | "probe"; probed_at: string | null };

function requireVms(vms: VmTools | undefined): VmTools {
  if (!vms) throw new ToolInputError("VM access is not configured on this server (SVC_SSH_HOST)");
  return vms;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));
const isNotFound = (e: unknown) => e instanceof ToolInputError && e.field === "vm_name";

function liveStatus(r: HostRecord | undefined, error: string | null): HostStatus {
  return { name: LOCAL_HOST, state: r?.state ?? "active", source: "live", probed_at: r?.probed_at ?? null, error, ...targetOf(r), up: error === null };
}

/**
 * Every host's VMs. Single host (the inventory holds only `local`, or nothing): the VM CLI on the
 * configured host, as before, each VM on `local`. Several hosts: `local` live through the VM CLI,
 * the others from their last probes; a host whose listing or probe failed is listed with its error.
 */
export async function listVmsOnHosts(vms: VmTools | undefined, records: readonly HostRecord[]): Promise<{ vms: VmOnHost[]; hosts: HostStatus[] }> {
  const local = records.find((r) => r.name === LOCAL_HOST);
  const live = (list: VmCliInfo[]) => list.map((v) => ({ ...v, host: LOCAL_HOST, source: "live" as const, probed_at: null }));
  if (!isMultiHost(records)) return { vms: live(await requireVms(vms).vmCli<VmCliInfo[]>(["list", "vm"])), hosts: [liveStatus(local, null)] };
  const out: VmOnHost[] = [];
  const hosts: HostStatus[] = [];
  for (const r of [...records].sort((a, b) => a.name.localeCompare(b.name))) {
    if (r.name === LOCAL_HOST && vms) {
      try {
        out.push(...live(await vms.vmCli<VmCliInfo[]>(["list", "vm"])));
        hosts.push(liveStatus(r, null));
      } catch (e) {
        hosts.push(liveStatus(r, message(e)));
      }
      continue;
    }
    hosts.push(probeStatus(r));
    out.push(...probedVms(r).map((v) => ({ ...v, host: r.name, source: "probe" as const, probed_at: r.probed_at })));
  }
  return { vms: out, hosts };
}

/**
 * The VM named `name` on whichever host holds it: `local` asked live first (as before), then the
 * other hosts' last probes. Not found anywhere: a tool error on vm_name naming the hosts searched.
 */
export async function findVmOnHosts(vms: VmTools | undefined, records: readonly HostRecord[], name: string): Promise<VmOnHost & { also_on: string[] }> {
  if (!isMultiHost(records)) {
    const v = await requireVms(vms).vmCli<VmCliInfo>(["info", "vm", name]);
    return { ...v, host: LOCAL_HOST, source: "live", probed_at: null, also_on: [] };
  }
  const searched: string[] = [];
  let liveAsked = false;
  const liveTried = !!vms && records.some((r) => r.name === LOCAL_HOST);
  if (vms && liveTried) {
    try {
      const v = await vms.vmCli<VmCliInfo>(["info", "vm", name]);
      const others = probeHolders(records, name).filter((r) => r.name !== LOCAL_HOST);
      return { ...v, host: LOCAL_HOST, source: "live", probed_at: null, also_on: others.map((r) => r.name) };
    } catch (e) {
      if (!isNotFound(e)) searched.push(`${LOCAL_HOST} (${message(e)})`);
      else {
        liveAsked = true;
        searched.push(`${LOCAL_HOST} (live)`);
      }
    }
  }
  const holders = probeHolders(records, name).filter((r) => !(liveAsked && r.name === LOCAL_HOST));
  const held = holders[0];
  if (held) {
    const v = probedVms(held).find((x) => x.name === name)!;
    return { ...v, host: held.name, source: "probe", probed_at: held.probed_at, also_on: holders.slice(1).map((r) => r.name) };
  }
  for (const r of records) {
    if (liveTried && r.name === LOCAL_HOST) continue;
    const s = probeStatus(r);
    if (s.source === "provider") searched.push(`${r.name} (${s.note})`);
    else searched.push(`${r.name} (${s.error ? `probe failed: ${s.error}` : `probe of ${r.probed_at}`})`);
  }
  throw new ToolInputError(`no VM named '${name}' on any host; searched ${searched.join(", ")}`, "vm_name");
}
