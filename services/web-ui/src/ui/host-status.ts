import type { Db } from "@svc/db";
import { UnavailableError } from "@svc/errors";
import { createHostInventory, DEFAULT_MAX_PROBE_AGE_MS, freshness, hostNumbers, placementPolicy, type HostCapacity, type HostNumbers, type HostRecord } from "@svc/hosts";
import { html, type Raw } from "./html";

/** A probe older than this counts as down, as the worker's router counts it (3 probe intervals of 10 s). */
export const MAX_PROBE_AGE_MS = DEFAULT_MAX_PROBE_AGE_MS;

/** The inventory's rows with their last probes, read from Postgres (no host is contacted). */
export async function readHosts(db: Db | undefined): Promise<HostRecord[]> {
  if (!db) throw new UnavailableError("the host inventory is not available in this process");
  return createHostInventory(db).list();
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago" (a clock skewed into the future reads "just now"). */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 5) return "just now";
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** A time shown as its age, the exact time in its title. */
export const when = (iso: string, now: number): Raw => html`<time datetime="${iso}" title="${iso}">${ago(iso, now)}</time>`;

/** Up (a probe without error within MAX_PROBE_AGE_MS, the worker's rule) or down with the reason. */
export function statusOf(r: HostRecord, now: number): { up: true } | { up: false; reason: string } {
  const f = freshness(r, MAX_PROBE_AGE_MS, now);
  if (f.up || r.probe_error || !r.last_probe) return f;
  // Stale: the page shows when it was last read, so the reason says only the rule.
  return { up: false, reason: `no probe in the last ${MAX_PROBE_AGE_MS / 1000} s` };
}

/** The room left as placement counts it (after the host's reserve), from the last probe. */
export const roomOf = (r: HostRecord, c: HostCapacity): HostNumbers => hostNumbers({ ...placementPolicy(r), capacity: c }, c);

/** vCPUs placement may hand out on this host: total × cpu_ratio, less the reserve. */
export const vcpuCapacity = (r: HostRecord, c: HostCapacity): number => Math.floor(c.vcpus_total * r.cpu_ratio) - r.reserve_vcpus;

/** Link to a host's row on /hosts. */
export const hostAnchor = (name: string): string => `host-${name}`;
