import { userInfo } from "node:os";

/** Who runs this process, for messages about permissions. */
export interface Runner {
  uid: number;
  user: string;
}

export function currentRunner(): Runner {
  const uid = process.getuid?.() ?? 0;
  let user = "";
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container with an arbitrary uid): named by its uid.
  }
  return { uid, user: user || `uid ${uid}` };
}

/**
 * What to do when `who` could not write or read `path`. Root is never told to use sudo: for
 * root the cause is the path itself (a read-only mount, an immutable bit, a security module).
 */
export function fileAccessAdvice(path: string, code: string, who: Runner = currentRunner()): string {
  if (who.uid === 0)
    return `root cannot write ${path} (${code}): check that its file system is writable and not mounted read-only, and the security module's policy (SELinux/AppArmor)`;
  return `user ${who.user} cannot write ${path} (${code}): VMs on qemu:///system are managed as root: run svc-vm as root (sudo svc-vm ...), or set SVC_VM_DISKS_DIR to a directory ${who.user} owns`;
}

/**
 * libvirt said "permission denied". For root that is qemu (its own user, libvirt-qemu on Debian,
 * qemu on RHEL) failing to open a disk or image: every directory above them must be
 * world-traversable. For anyone else it is the right to manage system VMs.
 */
export function libvirtDeniedAdvice(uri: string, msg: string, dirs: string[], who: Runner = currentRunner()): string {
  if (who.uid === 0) {
    return `libvirt was denied access (${msg}); qemu runs as its own user and must read the images and disks: make ${dirs.join(" and ")} and every directory above them world-readable and traversable (chmod 755), or run scripts/development/prepare-host.sh`;
  }
  return `user ${who.user} may not manage VMs at ${uri} (${msg}): run svc-vm as root (sudo svc-vm ...), or add ${who.user} to the libvirt group`;
}
