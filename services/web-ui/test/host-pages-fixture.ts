import type { Express } from "express";
import { createEngineApi } from "@svc/engine";
import { createHostService, type HostCapacity, type HostService, type ProbedVm } from "@svc/hosts";
import type { AuthSettings } from "@svc/http";
import { defaultOperators } from "@svc/operators";
import { createTestDb, recordingNotifier, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../src/app";
import { AUTH } from "./helpers";

/** A VM name with markup in it: the pages must show it as text. */
export const HOSTILE_VM = `<img src=x onerror="alert(1)">`;

/** A probe as a worker records it; `vms` decides the used vCPUs and committed memory (running ones). */
export function probe(o: {
  vms: ProbedVm[];
  probedAt: string;
  memoryTotal?: number;
  memoryFree?: number;
  vcpus?: number;
  disk?: [number, number];
  images?: string[];
}): HostCapacity {
  const running = o.vms.filter((v) => v.running);
  return {
    memory_total_mb: o.memoryTotal ?? 16384,
    memory_free_mb: o.memoryFree ?? 12000,
    memory_committed_mb: running.reduce((s, v) => s + (v.memory_mb ?? 0), 0),
    vcpus_total: o.vcpus ?? 8,
    vcpus_used: running.reduce((s, v) => s + (v.cpus ?? 0), 0),
    disk_total_gb: o.disk?.[0] ?? 500,
    disk_free_gb: o.disk?.[1] ?? 200,
    disk_path: "/var/lib/svc/vms",
    images: o.images ?? [],
    vms: o.vms,
    vm_count: o.vms.filter((v) => v.svc).length,
    probed_at: o.probedAt,
  };
}

const vm = (name: string, running: boolean, svc: boolean, memory_mb: number, cpus: number): ProbedVm => ({ name, running, svc, memory_mb, cpus });

/** alpha's VMs: two svc-made running ones and a stopped one someone else made, named with markup. */
export const ALPHA_VMS = [vm("web01", true, true, 2048, 2), vm("db01", true, true, 1024, 1), vm(HOSTILE_VM, false, false, 1024, 1)];
/** The time of beta's last probe: long ago, so beta is stale (down) whatever the clock says. */
export const BETA_PROBED_AT = "2026-01-01T00:00:00.000Z";

export interface HostPagesFixture {
  tdb: TestDb;
  hosts: HostService;
  /** Credentials configured as helpers.AUTH (basic admin), the pages given the database. */
  app: Express;
  /** A bearer token with the viewer role. */
  viewer: Express;
  /** The pages without a database handle. */
  noDb: Express;
  /** Record alpha's probe as just made (the page counts a probe older than 30 s as down). */
  probeAlpha(): Promise<void>;
  close(): Promise<void>;
}

export const VIEWER_TOKEN = "viewer-token-1";

/**
 * Hosts recorded without contacting them (probe: false), then given probes as a worker records them:
 * alpha (active, fresh probe, reserves 1024 MiB / 10 GB / 2 vCPUs, cpu_ratio 2), beta (draining, a
 * probe from long ago), gamma (never read: its only probe failed).
 */
export async function createHostPagesFixture(label: string): Promise<HostPagesFixture> {
  const tdb = await createTestDb(label);
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir: "/nonexistent", catalog: defaultOperators(), maxPageLimit: 100 });
  const hosts = createHostService({ db: tdb.db });
  const base = { ssh_user: "svcops", key_path: "/etc/svc/id_ed25519" };
  await hosts.add(
    {
      ...base,
      name: "alpha",
      address: "10.0.0.11",
      port: 2222,
      libvirt_uri: "qemu+ssh://svcops@10.0.0.11/system",
      labels: { zone: "a" },
      reserve_memory_mb: 1024,
      reserve_disk_gb: 10,
      reserve_vcpus: 2,
      cpu_ratio: 2,
    },
    { probe: false, actor: "test" },
  );
  await hosts.add({ ...base, name: "beta", address: "10.0.0.12", reserve_memory_mb: 0, reserve_disk_gb: 0, cpu_ratio: 1 }, { probe: false, actor: "test" });
  await hosts.add({ ...base, name: "gamma", address: "10.0.0.13" }, { probe: false, actor: "test" });
  const probeAlpha = () => hosts.inventory.saveProbe("alpha", { capacity: probe({ vms: ALPHA_VMS, probedAt: new Date().toISOString(), images: ["alma-9", "debian-12"] }) });
  await probeAlpha();
  await hosts.inventory.saveProbe("beta", { capacity: probe({ vms: [vm("old01", true, true, 512, 1)], probedAt: BETA_PROBED_AT, vcpus: 4, disk: [100, 40] }) });
  await hosts.drain("beta", "test");
  await hosts.inventory.saveProbe("gamma", { error: "ssh: connect ECONNREFUSED 10.0.0.13:22" });
  const make = (auth: AuthSettings, withDb = true) => createWebUiApp({ api, hosts, auth, ...(withDb ? { ui: { db: tdb.db } } : {}) });
  return {
    tdb,
    hosts,
    app: make(AUTH),
    viewer: make({ apiToken: VIEWER_TOKEN, apiTokenRole: "viewer" }),
    noDb: make(AUTH, false),
    probeAlpha,
    close: () => tdb.drop(),
  };
}
