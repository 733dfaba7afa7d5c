import { isIP } from "node:net";
import { VmInputError } from "./errors";
import type { FirewallRule } from "./types";

/** Whether `c` is `address/length` (IPv4 or IPv6, the length in range). */
export const CIDR = (c: string): boolean => {
  const [ip, len, ...rest] = c.split("/");
  const v = isIP(ip ?? "");
  return rest.length === 0 && v !== 0 && len !== undefined && /^\d{1,3}$/.test(len) && Number(len) <= (v === 4 ? 32 : 128);
};

/** Check a VM's firewall rules before any call: ports 1-65535, a range that rises, CIDRs (never coerced). */
export function assertFirewallRules(rules: readonly FirewallRule[]): void {
  for (const r of rules) {
    const what = `firewall rule ${r.proto}/${r.port}${r.toPort ? `-${r.toPort}` : ""}`;
    if (r.proto !== "tcp" && r.proto !== "udp") throw new VmInputError(`${what}: the protocol is tcp or udp`);
    for (const p of [r.port, r.toPort ?? r.port]) if (!Number.isInteger(p) || p < 1 || p > 65535) throw new VmInputError(`${what}: a port is 1-65535`);
    if ((r.toPort ?? r.port) < r.port) throw new VmInputError(`${what}: the range must rise`);
    if (!r.from.length) throw new VmInputError(`${what}: no source CIDR (a rule opens a port to someone)`);
    for (const c of r.from) if (!CIDR(c)) throw new VmInputError(`${what}: '${c}' is not a CIDR such as 192.0.2.0/24`);
  }
}

/** The rules grouped by their set of sources (providers whose object takes one source list), in a stable order. */
export function bySources(rules: readonly FirewallRule[]): { from: string[]; rules: FirewallRule[] }[] {
  const groups = new Map<string, { from: string[]; rules: FirewallRule[] }>();
  for (const r of rules) {
    const from = [...new Set(r.from)].sort();
    const k = from.join(",");
    const g = groups.get(k) ?? { from, rules: [] };
    g.rules.push(r);
    groups.set(k, g);
  }
  return [...groups.values()];
}

/** A rule's ports as providers write them: `22` or `8000-8100`. */
export const portText = (r: FirewallRule): string => (r.toPort && r.toPort !== r.port ? `${r.port}-${r.toPort}` : String(r.port));
