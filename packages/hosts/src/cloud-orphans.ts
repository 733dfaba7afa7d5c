import type { SvcConfig } from "@svc/config";
import { createDb, type Db } from "@svc/db";
import { cloudDriverFor, secretsFromConfig, type CloudDriverOptions, type CloudSecrets, type HourlyPrice } from "@svc/vm";
import { createHostInventory } from "./inventory";
import type { HostRecord } from "./types";

/** An instance labelled managed-by=svc on a cloud host that no run of svc holds. */
export interface CloudOrphan {
  host: string;
  provider: string;
  region: string;
  name: string;
  instance_id: string;
  state: string;
  size: string;
  public_ip: string | null;
  launched_at: string | null;
  age_s: number | null;
  /** Per hour, where the provider's API gives it (Hetzner's server_types); null otherwise (AWS). */
  hourly_price: HourlyPrice | null;
  /** Why no record holds it: no svc-run-id label, or the run it names is gone. */
  reason: string;
  labels: Record<string, string>;
}

/** A cloud host whose provider did not answer: its instances are unknown, not absent. */
export interface CloudUnavailable {
  host: string;
  provider: string;
  region: string;
  error: string;
}

export interface OrphanReport {
  orphans: CloudOrphan[];
  unavailable: CloudUnavailable[];
}

/** Where a cloud host's settings place it: the AWS region, Hetzner or Azure location, GCP zone. */
export const regionOf = (h: Pick<HostRecord, "provider_settings">): string => h.provider_settings.region ?? h.provider_settings.location ?? h.provider_settings.zone ?? "";

/**
 * The orphans of every cloud host: instances labelled managed-by=svc whose `svc-run-id` label names no
 * run in the database (`dag_run`, the record svc keeps of what it ran), or that carry none (made by
 * `svc-vm create` outside a run). A provider that does not answer is reported apart, never as "none".
 */
export async function findCloudOrphans(db: Db, hosts: readonly HostRecord[], secrets: CloudSecrets, cloudOptions: CloudDriverOptions = {}): Promise<OrphanReport> {
  const cloud = hosts.filter((h) => h.provider !== "libvirt");
  const unavailable: CloudUnavailable[] = [];
  const listed = await Promise.all(
    cloud.map(async (h) => {
      try {
        const driver = await cloudDriverFor(h, secrets, cloudOptions);
        const vms = await driver.list();
        const prices = new Map<string, Awaited<ReturnType<typeof driver.hourlyPrice>>>();
        for (const size of new Set(vms.map((v) => v.cloud?.size ?? ""))) prices.set(size, size ? await driver.hourlyPrice(size).catch(() => null) : null);
        return vms.map((v) => ({ h, v, price: prices.get(v.cloud?.size ?? "") ?? null }));
      } catch (e) {
        unavailable.push({ host: h.name, provider: h.provider, region: regionOf(h), error: (e as Error).message });
        return [];
      }
    }),
  );
  const all = listed.flat();
  const runIds = [...new Set(all.map((x) => x.v.cloud?.labels["svc-run-id"]).filter((r): r is string => Boolean(r)))];
  const runs = runIds.length ? await db.selectFrom("dag_run").select(["dag_id", "run_id"]).where("run_id", "in", runIds).execute() : [];
  const held = new Set(runs.map((r) => `${r.dag_id}\0${r.run_id}`));
  const orphans: CloudOrphan[] = [];
  for (const { h, v, price } of all) {
    const labels = v.cloud?.labels ?? {};
    const run = labels["svc-run-id"];
    const dag = labels["svc-dag-id"] ?? "";
    if (run && held.has(`${dag}\0${run}`)) continue;
    orphans.push({
      host: h.name,
      provider: h.provider,
      region: v.cloud?.region ?? regionOf(h),
      name: v.name,
      instance_id: v.cloud?.instance_id ?? "",
      state: v.state,
      size: v.cloud?.size ?? "",
      public_ip: v.cloud?.public_ip ?? null,
      launched_at: v.cloud?.launched_at ?? null,
      age_s: v.cloud?.age_s ?? null,
      hourly_price: price,
      reason: run ? `its run ${run} of ${dag || "?"} is not in svc's records` : "no svc-run-id label: made outside a run (svc-vm create), no run records it",
      labels,
    });
  }
  orphans.sort((a, b) => a.host.localeCompare(b.host) || a.name.localeCompare(b.name));
  unavailable.sort((a, b) => a.host.localeCompare(b.host));
  return { orphans, unavailable };
}

/** An age as the tables show it: 3d4h, 5h12m, 7m. */
export function ageText(s: number | null): string {
  if (s === null) return "-";
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d}d${h}h` : h ? `${h}h${m}m` : `${m}m`;
}

/** The orphans of the inventory the settings name (DATABASE_URL), with the secrets file's keys: for a worker's try. */
export async function cloudOrphansOf(config: SvcConfig): Promise<OrphanReport & { cloud_hosts: number }> {
  const db = createDb(config.databaseUrl, { max: 1, applicationName: "svc-cloud-orphans" });
  try {
    const hosts = await createHostInventory(db).list();
    return {
      ...(await findCloudOrphans(db, hosts, secretsFromConfig(config), config.azureAuthorityHost ? { azureAuthorityHost: config.azureAuthorityHost } : {})),
      cloud_hosts: hosts.filter((h) => h.provider !== "libvirt").length,
    };
  } finally {
    await db.destroy();
  }
}
