import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const URI = "qemu:///system";

function virshWorks(uri: string): boolean {
  return spawnSync("virsh", ["--connect", uri, "version"], { stdio: "ignore", timeout: 60_000 }).status === 0;
}

/**
 * Make sure libvirtd answers on qemu:///system: starts virtlogd and libvirtd (no systemd here)
 * when they are not running, and makes /dev/kvm group-kvm so libvirt stops re-probing it.
 * Leaves running daemons alone; what it starts keeps running for later tests (it is the host's service).
 */
export async function ensureLibvirtd(uri = URI): Promise<void> {
  if (existsSync("/dev/kvm")) {
    spawnSync("chgrp", ["kvm", "/dev/kvm"]);
    spawnSync("chmod", ["660", "/dev/kvm"]);
  }
  if (virshWorks(uri)) return;
  if (spawnSync("pgrep", ["-x", "virtlogd"]).status !== 0) spawnSync("virtlogd", ["-d"]);
  if (spawnSync("pgrep", ["-x", "libvirtd"]).status !== 0) spawnSync("libvirtd", ["-d"]);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (virshWorks(uri)) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`libvirtd did not answer on ${uri}; start it by hand: virtlogd -d && libvirtd -d`);
}
