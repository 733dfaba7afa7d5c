import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { acquireVmTestLock, createVmScratch, ensureLibvirtd, ensureTestImage, TEST_IMAGES_DIR, type VmScratch } from "@svc/testing";
import { REPO_ROOT } from "./runtime-harness";

/** Every VM a catalogue test creates starts with this, so clean-up can find leftovers. */
export const VM_PREFIX = "svccat-";

/** What the real-VM tests need on this machine: libvirt, the test image, a scratch dir and key, the VM test lock. */
export interface VmTestEnv {
  image: string;
  scratch: VmScratch;
  /** Environment for the engine config (images, inventory, and the host operators' VM CLI, disks directory and key pair). */
  configEnv: Record<string, string>;
  release(): Promise<void>;
}

/**
 * Take the VM test lock, make sure libvirtd and the test image are there, and give the engine
 * config that points the host operators at a scratch disks directory and key pair and at this
 * checkout's VM CLI.
 */
export async function prepareVmTestEnv(label: string): Promise<VmTestEnv> {
  const unlock = await acquireVmTestLock();
  const inventoryDir = mkdtempSync(path.join(tmpdir(), `svc-inv-${label}-`));
  let scratch: VmScratch | undefined;
  try {
    await ensureLibvirtd();
    const img = ensureTestImage();
    scratch = createVmScratch(label);
    const s = scratch;
    return {
      image: img.image,
      scratch: s,
      configEnv: {
        SVC_VM_IMAGES_DIR: TEST_IMAGES_DIR,
        SVC_INVENTORY_DIR: inventoryDir,
        SVC_VM_DRIVER: "libvirt",
        SVC_VM_CLI: JSON.stringify([path.join(REPO_ROOT, "packages/vm/bin/svc-vm")]),
        SVC_VM_DISKS_DIR: s.disksDir,
        SVC_VM_SSH_PUBKEY: s.pubKeyPath,
        SVC_VM_SSH_PRIVKEY: s.keyPath,
      },
      async release() {
        s.cleanup(VM_PREFIX);
        rmSync(inventoryDir, { recursive: true, force: true });
        unlock();
      },
    };
  } catch (e) {
    scratch?.cleanup(VM_PREFIX);
    rmSync(inventoryDir, { recursive: true, force: true });
    unlock();
    throw e;
  }
}
