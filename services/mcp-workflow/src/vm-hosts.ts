import { DEFAULT_MAX_PROBE_AGE_MS, freshness, HOST_NAME, hostRegion, hostUp, LOCAL_HOST, placementOver, type HostRecord } from "@svc/hosts";
import { ToolInputError } from "@svc/mcp";
import { z } from "zod";
import type { VmCliInfo } from "./vm-access";

/** The hypervisor hosts as the VM tools see them: the inventory's rows with their last probes (Postgres). */
export interface HostList {
  list(): Promise<HostRecord[]>;
}

/** A probe older than this counts as down, as the worker's router counts it (@svc/hosts). */
export { DEFAULT_MAX_PROBE_AGE_MS };

/** The `host` arg of the VM tools: a host of the inventory (one lower-case DNS label). */
export const hostArg = z.string().regex(HOST_NAME, "a host of the inventory: lower-case letters, digits and '-', 1 to 63").describe("host of the inventory (svc-hosts list)");

/** The inventory's rows, or none when the tools have no inventory (a single-host install as before). */
export const hostRecords = async (hosts: HostList | undefined): Promise<HostRecord[]> => (hosts ? hosts.list() : []);

/** Hosts other than `local` are in the inventory: the tools answer per host. Otherwise they answer as a single host did. */
export const isMultiHost = (records: readonly HostRecord[]): boolean => records.some((r) => r.name !== LOCAL_HOST);

/** The names a caller may give as `host` (a single-host install knows only `local`). */
export const hostNames = (records: readonly HostRecord[]): string[] => (records.length ? records.map((r) => r.name) : [LOCAL_HOST]);

/** A `host` arg must name a host of the inventory; the error lists them. */
export function requireKnownHost(records: readonly HostRecord[], host: string): void {
  const names = hostNames(records);
  if (!names.includes(host)) throw new ToolInputError(`host '${host}' is not in the inventory; the hosts are: ${names.join(", ")}`, "host");
}

/** Is the host's last probe good and recent enough to count on: the router's rule (@svc/hosts). */
export { freshness };

/** One host in a tool's answer: where its VMs were read, and the error when they could not be. */
export const HostStatus = z.object({
  name: z.string(),
  state: z.string(),
  source: z.enum(["live", "probe", "provider"]).describe("live: the VM CLI now; probe: the host's last probe; provider: a cloud host, whose instances its provider lists"),
  probed_at: z.string().nullable(),
  error: z.string().nullable(),
  provider: z.string().describe("libvirt, or the cloud whose account a VM there bills (aws, hetzner)"),
  region: z.string().nullable().describe("a cloud host's region or location"),
  up: z.boolean().describe("libvirt: a recent probe without error; cloud: its last identity call did not fail"),
  note: z.string().optional(),
});
export type HostStatus = z.infer<typeof HostStatus>;

/** The provider, region and up/down of a host, as every VM tool shows it. */
export function targetOf(r: HostRecord | undefined, maxAgeMs = DEFAULT_MAX_PROBE_AGE_MS): Pick<HostStatus, "provider" | "region" | "up"> {
  if (!r) return { provider: "libvirt", region: null, up: true };
  return { provider: r.provider, region: hostRegion(r) ?? null, up: hostUp(r, maxAgeMs).up };
}

const CLOUD_NOTE = (r: HostRecord) => `a ${r.provider} host: its instances are listed by its provider (svc-vm list vm -C ${r.name}), not here`;

/** A host whose VMs come from its last probe: the probe's error (a failed probe lists no VMs); a cloud host: its identity call's error. */
export function probeStatus(r: HostRecord): HostStatus {
  if (r.provider !== "libvirt") return { name: r.name, state: r.state, source: "provider", probed_at: r.probed_at, error: r.probe_error, ...targetOf(r), note: CLOUD_NOTE(r) };
  const error = r.probe_error ?? (r.last_probe ? null : "not probed yet");
  return { name: r.name, state: r.state, source: "probe", probed_at: r.probed_at, error, ...targetOf(r) };
}

/** The VMs of a host's last good probe, in the VM CLI's shape (what a probe does not see is null). */
export function probedVms(r: HostRecord): VmCliInfo[] {
  if (r.probe_error || !r.last_probe) return [];
  return r.last_probe.vms.map((v) => ({
    name: v.name,
    state: v.running ? "running" : "shut off",
    image: null,
    cpus: v.cpus,
    memory_mb: v.memory_mb,
    ip: null,
    ssh_host: null,
    ssh_port: null,
  }));
}

/** The hosts whose last good probe lists the VM `name`. */
export const probeHolders = (records: readonly HostRecord[], name: string): HostRecord[] => records.filter((r) => probedVms(r).some((v) => v.name === name));

/** Placement of a VM over the hosts' last probes, as the worker would place it (@svc/hosts). */
export { placementOver };
