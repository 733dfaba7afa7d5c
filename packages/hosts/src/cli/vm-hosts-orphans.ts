import { VM_CLI_EXIT as EXIT, type CliIo, type CloudDriverOptions, type CloudSecrets } from "@svc/vm";
import type { Db } from "@svc/db";
import { ageText, findCloudOrphans } from "../cloud-orphans";
import type { HostRecord } from "../types";

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(w[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * `svc-vm list vm --orphans`: instances labelled managed-by=svc on every cloud host that no run of svc
 * holds, with age and hourly price. A provider that does not answer is named (on stderr; -o json:
 * "unavailable") and the exit code is 5: its orphans are unknown, not none.
 */
export async function listOrphans(db: Db, hosts: HostRecord[], secrets: CloudSecrets, json: boolean, io: CliIo, cloudOptions: CloudDriverOptions = {}): Promise<number> {
  const r = await findCloudOrphans(db, hosts, secrets, cloudOptions);
  if (json) io.out(JSON.stringify(r, null, 2));
  else if (r.orphans.length === 0)
    io.out(hosts.some((h) => h.provider !== "libvirt") ? "no orphaned instances" : "no cloud hosts in the inventory (svc-hosts add --provider aws|hetzner)");
  else {
    const price = (p: { amount: string; currency: string } | null) => (p ? `${p.amount} ${p.currency}/h` : "- (not in the API)");
    io.out(
      table(
        ["HOST", "PROVIDER", "REGION", "NAME", "INSTANCE", "STATE", "SIZE", "AGE", "PRICE", "WHY"],
        r.orphans.map((o) => [o.host, o.provider, o.region, o.name, o.instance_id, o.state, o.size, ageText(o.age_s), price(o.hourly_price), o.reason]),
      ),
    );
  }
  for (const u of r.unavailable) io.err(`svc-vm: host '${u.host}' (${u.provider} ${u.region}) not checked: ${u.error}`);
  return r.unavailable.length ? EXIT.unavailable : EXIT.ok;
}
