import { type z } from "zod";
import { ageText, cloudOrphansOf, type OrphanReport } from "@svc/hosts/routing";
import type { SvcConfig } from "@svc/config";
import { args } from "./cloud-orphans-args";
import type { Operator } from "../types";

/** Where the report comes from (tests give their own inventory through the config's DATABASE_URL). */
export interface CloudOrphansDeps {
  report?: (config: SvcConfig) => Promise<OrphanReport & { cloud_hosts: number }>;
}

/**
 * cloud_orphans: instances labelled managed-by=svc on the inventory's cloud hosts that no run of svc
 * holds, as health findings (`FINDING warning cloud: ...`, one per orphan with its age and hourly
 * price; one per provider that did not answer). Findings, not a failure: the run goes on.
 */
export function createCloudOrphansOperator(deps: CloudOrphansDeps = {}): Operator<z.infer<typeof args>> {
  const report = deps.report ?? cloudOrphansOf;
  return {
    name: "cloud_orphans",
    description:
      "Report instances labelled managed-by=svc on the inventory's cloud hosts that no svc run holds (age, hourly price), and cloud providers that did not answer; output orphans, unavailable, cloud_hosts",
    args,
    async run(_a, ctx) {
      const r = await report(ctx.config);
      const finding = (severity: "ok" | "warning", message: string) => ctx.log(`FINDING ${severity} cloud: ${message}`, "system");
      for (const o of r.orphans) {
        const price = o.hourly_price ? `${o.hourly_price.amount} ${o.hourly_price.currency}/h` : "price not given by the API";
        finding(
          "warning",
          `orphaned instance ${o.name} on ${o.host} (${o.provider} ${o.region}, ${o.instance_id}, ${o.size}, ${o.state}, up ${ageText(o.age_s)}, ${price}): ${o.reason}`,
        );
      }
      for (const u of r.unavailable) finding("warning", `host ${u.host} (${u.provider} ${u.region}) not checked: ${u.error}`);
      if (r.orphans.length === 0 && r.unavailable.length === 0) {
        finding("ok", r.cloud_hosts ? `no orphaned instances on ${r.cloud_hosts} cloud host(s)` : "no cloud hosts in the inventory");
      }
      return { orphans: r.orphans, unavailable: r.unavailable, cloud_hosts: r.cloud_hosts };
    },
  };
}
