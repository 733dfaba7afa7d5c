import { readFile } from "node:fs/promises";
import { resolveSshFiles, type SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import { hostKeyName, parseKnownHosts, verifyHostKey } from "@svc/host/known-hosts";
import { createHostInventory } from "./inventory";
import { LOCAL_HOST, newHostSchema } from "./names";
import type { HostRecord } from "./types";

/** Keys pinned for host:port in a known_hosts file (`type base64` lines), or null when none is. */
export async function pinnedKeysFor(knownHostsPath: string, address: string, port: number): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(knownHostsPath, "utf8");
  } catch {
    return null;
  }
  const entries = parseKnownHosts(text);
  const name = hostKeyName(address, port);
  // verifyHostKey knows patterns, wildcards and hashed names: an entry's own key matches it when the entry names this host.
  const mine = entries.filter((e) => !e.revoked && verifyHostKey(entries, name, Buffer.from(e.key, "base64")).kind === "match");
  const lines = [...new Set(mine.map((e) => `${e.keyType} ${e.key}`))];
  return lines.length ? lines.join("\n") : null;
}

/** Outcome of ensureLocalHost: `drift` names settings that differ from the row (it is never rewritten). */
export interface LocalHostResult {
  host: HostRecord;
  created: boolean;
  drift: string[];
}

/**
 * Make sure the inventory has `local`, the host the stack runs on, made from the settings the
 * workers use today (SVC_SSH_*, SVC_LIBVIRT_URI, SVC_VM_IMAGES_DIR/DISKS_DIR) and the key pinned
 * for it in their known_hosts. Idempotent; an existing row is left as it is, differences reported.
 */
export async function ensureLocalHost(db: Db, config: Pick<SvcConfig, "ssh" | "vm">, actor = "system"): Promise<LocalHostResult> {
  const inv = createHostInventory(db);
  const files = resolveSshFiles(config.ssh);
  const want = newHostSchema.parse({
    name: LOCAL_HOST,
    ssh_user: config.ssh.user,
    address: config.ssh.host,
    port: config.ssh.port,
    key_path: files.keyPath,
    libvirt_uri: config.vm.libvirtUri,
    images_dir: config.vm.imagesDir,
    disks_dir: config.vm.disksDir,
  });
  const existing = await inv.find(LOCAL_HOST);
  if (existing) {
    const keys = ["ssh_user", "address", "port", "key_path", "libvirt_uri", "images_dir", "disks_dir"] as const;
    return { host: existing, created: false, drift: keys.filter((k) => existing[k] !== want[k]) };
  }
  const host_key = await pinnedKeysFor(files.knownHostsPath, want.address, want.port);
  try {
    return { host: await inv.insert({ ...want, host_key }, actor), created: true, drift: [] };
  } catch (e) {
    // Made concurrently by another process: theirs is as good.
    if ((e as { code?: string }).code !== "already_exists") throw e;
    return { host: await inv.get(LOCAL_HOST), created: false, drift: [] };
  }
}
