import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createTestDb, ensureLibvirtd, startSshd, type TestDb, type TestSshd } from "@svc/testing";
import { createHostInventory, type HostInventory } from "../src";

export const URI = "qemu:///system";

/** Two hosts `a` and `b`: this machine's libvirt reached through two private sshds, each key pinned; `local` unprobed. */
export interface TwoHosts {
  tdb: TestDb;
  inv: HostInventory;
  sshd: { a: TestSshd; b: TestSshd };
  dir: string;
  addHosts(): Promise<void>;
  close(): Promise<void>;
}

/** The logger the routing gets in tests: the lines it logs, kept for assertions. */
export function recordingLogger() {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  return {
    lines,
    info: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: "info", msg, fields }),
    warn: (fields: Record<string, unknown>, msg: string) => void lines.push({ level: "warn", msg, fields }),
  };
}

export async function twoHosts(label: string): Promise<TwoHosts> {
  await ensureLibvirtd(URI);
  const tdb = await createTestDb(label);
  const [a, b] = await Promise.all([startSshd(), startSshd()]);
  const dir = mkdtempSync(join(os.tmpdir(), `svc-${label}-`));
  // One image both hosts have (the image filter of placement).
  mkdirSync(join(dir, "images", "alpha"), { recursive: true });
  writeFileSync(join(dir, "images", "alpha", "disk.qcow2"), "");
  const inv = createHostInventory(tdb.db);
  // `local` as a single-host install has it, recorded without a probe.
  await inv.insert({ name: "local", ssh_user: "root", address: "127.0.0.1", port: 1, key_path: a.keyPath, host_key: null, ...paths(dir), ...policy }, "test");
  return {
    tdb,
    inv,
    sshd: { a, b },
    dir,
    async addHosts() {
      for (const [name, s] of [
        ["a", a],
        ["b", b],
      ] as const) {
        await inv.insert({ name, ssh_user: s.user, address: s.host, port: s.port, key_path: s.keyPath, host_key: s.hostPublicKey, ...paths(dir), ...policy }, "test");
      }
    },
    async close() {
      await Promise.all([a.stop(), b.stop()]);
      await tdb.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const paths = (dir: string) => ({ libvirt_uri: URI, images_dir: join(dir, "images"), disks_dir: join(dir, "vms") });
const policy = { labels: {}, reserve_memory_mb: 512, reserve_disk_gb: 0, reserve_vcpus: 0, cpu_ratio: 4 };
