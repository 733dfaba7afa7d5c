import { join } from "node:path";
import type { HostExecutor } from "@svc/host";
import { VmInputError } from "../errors";
import type { ResolvedImage } from "../images";
import { lastError } from "./virsh";

/** A disk file of a VM, as the domain XML names it. */
export interface VmDisk {
  path: string;
  format: "qcow2";
}

/**
 * The VM's disks in `vmDir`: `root.qcow2` (a copy-on-write overlay on the image, grown to the first
 * size when given; without an image an empty disk of that size), then `dataN.qcow2` for the rest.
 */
export async function makeDisks(ex: HostExecutor, disksGb: readonly number[], image: ResolvedImage | null, vmDir: string): Promise<VmDisk[]> {
  const disks: VmDisk[] = [];
  const root = join(vmDir, "root.qcow2");
  const size = disksGb[0];
  if (image) {
    await qemuImg(ex, ["create", "-q", "-f", "qcow2", "-F", image.diskFormat, "-b", image.disk, root, ...(size ? [`${size}G`] : [])], image.disk, size);
    disks.push({ path: root, format: "qcow2" });
  } else if (size) {
    await qemuImg(ex, ["create", "-q", "-f", "qcow2", root, `${size}G`]);
    disks.push({ path: root, format: "qcow2" });
  }
  for (const [i, gb] of disksGb.slice(1).entries()) {
    const p = join(vmDir, `data${i + 1}.qcow2`);
    await qemuImg(ex, ["create", "-q", "-f", "qcow2", p, `${gb}G`]);
    disks.push({ path: p, format: "qcow2" });
  }
  return disks;
}

async function qemuImg(ex: HostExecutor, args: string[], base?: string, sizeGb?: number): Promise<void> {
  const r = await ex.run(["qemu-img", ...args], { timeoutMs: 120_000 });
  if (r.code === 0) return;
  const msg = lastError(r.stderr);
  // Asking for a root disk smaller than the image is a user error, not a tool failure.
  if (base && sizeGb && /shrink|smaller/i.test(msg)) throw new VmInputError(`disks: root disk ${sizeGb} GB is smaller than image ${base}`);
  throw new Error(`qemu-img ${args[0]} failed: ${msg}`);
}
