import { createHash } from "node:crypto";
import type { FirewallsClient, GlobalOperationsClient, protos } from "@google-cloud/compute";
import { bySources, portText } from "../firewall";
import type { FirewallRule } from "../types";

type Operation = protos.google.cloud.compute.v1.IOperation;

/** The network tag of a VM's firewall rules (a GCP name: at most 63 characters). */
export function gcpTag(vm: string): string {
  return vm.length <= 59 ? `svc-${vm}` : `svc-${createHash("sha256").update(vm).digest("hex").slice(0, 16)}`;
}

/** The description that marks a VM's firewall rules (firewall rules have no labels). */
export const gcpFirewallMark = (vm: string): string => `managed-by=svc vm=${vm}`;

/** A VM's firewall as GCP firewall rules on its network tag: one rule per set of sources, ingress, allow only. */
export function gcpFirewallResources(vm: string, network: string, rules: readonly FirewallRule[]): protos.google.cloud.compute.v1.IFirewall[] {
  const tag = gcpTag(vm);
  return bySources(rules).map((g, i) => {
    const allowed = (["tcp", "udp"] as const).map((proto) => ({ IPProtocol: proto, ports: g.rules.filter((r) => r.proto === proto).map(portText) })).filter((a) => a.ports.length);
    return {
      name: `${tag.slice(0, 58)}-fw${i}`,
      description: gcpFirewallMark(vm),
      network: `global/networks/${network}`,
      direction: "INGRESS",
      priority: 1000,
      targetTags: [tag],
      sourceRanges: g.from,
      allowed,
    };
  });
}

/** Insert, list and delete a VM's firewall rules, each global operation waited on. */
export class GcpFirewalls {
  constructor(
    private readonly fw: FirewallsClient,
    private readonly ops: GlobalOperationsClient,
    private readonly project: string,
    private readonly call: <T>(what: string, p: Promise<T>) => Promise<T>,
  ) {}

  private async wait(op: Operation): Promise<void> {
    let cur = op;
    while (String(cur.status) !== "DONE") [cur] = await this.call("globalOperations.wait", this.ops.wait({ project: this.project, operation: op.name! }));
    const e = cur.error?.errors?.[0];
    if (e) throw new Error(`firewall ${cur.targetLink?.split("/").pop()}: ${e.code}: ${e.message}`);
  }

  async create(resources: protos.google.cloud.compute.v1.IFirewall[]): Promise<void> {
    for (const r of resources) {
      const [op] = await this.call("firewalls.insert", this.fw.insert({ project: this.project, firewallResource: r }));
      await this.wait(op.latestResponse as Operation);
    }
  }

  async of(vm: string): Promise<protos.google.cloud.compute.v1.IFirewall[]> {
    const [items] = await this.call("firewalls.list", this.fw.list({ project: this.project, filter: `description = "${gcpFirewallMark(vm)}"` }));
    return items;
  }

  async remove(vm: string): Promise<void> {
    for (const f of await this.of(vm)) {
      const [op] = await this.call("firewalls.delete", this.fw.delete({ project: this.project, firewall: f.name! }));
      await this.wait(op.latestResponse as Operation);
    }
  }
}
