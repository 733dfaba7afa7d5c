import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throw-away disks directory and SSH key pair for VMs created by one test file. */
export interface VmScratch {
  disksDir: string;
  keyPath: string;
  pubKeyPath: string;
  pubKey: string;
  /** Destroy and undefine every domain whose name starts with `prefix`, then remove the directory. */
  cleanup(prefix: string, uri?: string): void;
}

/** Make the scratch directory (traversable by the qemu user) with an ed25519 key pair in it. */
export function createVmScratch(label: string): VmScratch {
  const dir = mkdtempSync(join(tmpdir(), `svc-vm-${label}-`));
  chmodSync(dir, 0o755);
  const keyPath = join(dir, "id_ed25519");
  spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `svc-test-${label}`, "-f", keyPath]);
  return {
    disksDir: join(dir, "disks"),
    keyPath,
    pubKeyPath: `${keyPath}.pub`,
    pubKey: readFileSync(`${keyPath}.pub`, "utf8").trim(),
    cleanup(prefix, uri = "qemu:///system") {
      const names = spawnSync("virsh", ["--connect", uri, "list", "--all", "--name"], { encoding: "utf8" }).stdout ?? "";
      for (const n of names
        .split("\n")
        .map((s) => s.trim())
        .filter((s) => s.startsWith(prefix))) {
        spawnSync("virsh", ["--connect", uri, "destroy", n], { stdio: "ignore" });
        spawnSync("virsh", ["--connect", uri, "undefine", n], { stdio: "ignore" });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
