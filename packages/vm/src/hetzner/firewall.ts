import { portText } from "../firewall";
import type { FirewallRule } from "../types";
import type { HetznerClient } from "./client";

/** A Hetzner Cloud firewall as the API returns it (the fields svc reads). */
export interface HcFirewall {
  id: number;
  name: string;
  labels: Record<string, string>;
}

/** A VM's firewall as Hetzner rules: inbound, one per rule (Hetzner drops what no rule allows). */
export const hetznerRules = (rules: readonly FirewallRule[]) =>
  rules.map((r) => ({ direction: "in", protocol: r.proto, port: portText(r), source_ips: [...new Set(r.from)].sort(), description: `svc ${r.proto}/${portText(r)}` }));

/** Make the VM's firewall (labelled managed-by=svc, svc-vm=NAME); its id, for the server's `firewalls`. */
export async function createVmFirewall(api: HetznerClient, vm: string, rules: readonly FirewallRule[]): Promise<number> {
  const r = await api.request<{ firewall: HcFirewall }>("POST", "/firewalls", { name: `svc-${vm}`, labels: { "managed-by": "svc", "svc-vm": vm }, rules: hetznerRules(rules) });
  return r.firewall.id;
}

/** Remove the VM's firewalls (found by their labels); none is no error. Call after its server is gone. */
export async function removeVmFirewalls(api: HetznerClient, vm: string): Promise<void> {
  for (const f of await api.all<HcFirewall>(`/firewalls?label_selector=${encodeURIComponent(`managed-by=svc,svc-vm=${vm}`)}`, "firewalls"))
    await api.request("DELETE", `/firewalls/${f.id}`);
}
